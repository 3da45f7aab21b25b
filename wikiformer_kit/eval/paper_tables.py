"""The Wikiformer paper's benchmarks (Su et al., AAAI 2024, Tables 2-4) as data: each benchmark's measures, first
stage and depth, and the paper's own figures, row by row, as printed (``*``: significantly worse than Wikiformer,
p < 0.05; ``NA``: not reported), so that ``python -m eval paper BENCHMARK`` prints a user's figures beside them.

The measures are ir_measures names (``RR@10`` is the paper's MRR@10, ``nDCG@10`` its N@10). The paper's text names
P@5 and nDCG@10 for TREC-COVID, but its Table 3 prints nDCG@10 only: P@5 is measured and has no paper figure.

Each benchmark also says what its collection looks like as distributed (`CollectionShape`: its judged query ids
where they are known, how many, their grades, the shape of its document ids), so that a collection of another
benchmark is refused before anything is scored (`check_collection`) instead of printed under the paper's rows; a
sample of a benchmark's queries passes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from wikiformer_kit.eval.collections.relevance import grades


@dataclass(frozen=True)
class PaperFigure:
    """One cell of the paper's tables: its value (None for ``NA``) and whether it carries the paper's ``*``."""

    value: float | None
    worse: bool

    @classmethod
    def parse(cls, cell: str) -> PaperFigure:
        """``"0.2656*"`` -> 0.2656, marked; ``"NA"`` -> no value; the paper's one ``0.3407**`` reads as marked."""
        if cell == "NA":
            return cls(None, False)
        return cls(float(cell.rstrip("*")), cell.endswith("*"))

    def __str__(self) -> str:
        return "NA" if self.value is None else f"{self.value:.4f}" + ("\\*" if self.worse else "")


TREC_DL_2019_JUDGED = frozenset(
    "19335 47923 87181 87452 104861 130510 131843 146187 148538 156493 168216 182539 183378 207786 264014 359349 "
    "405717 443396 451602 489204 490595 527433 573724 833860 855410 915593 962179 1037798 1063750 1103812 1106007 "
    "1110199 1112341 1113437 1114646 1114819 1115776 1117099 1121402 1121709 1124210 1129237 1133167".split()
)
"""The 43 queries NIST judged for TREC DL 2019's document ranking (``2019qrels-docs.txt``)."""

LECARD_QUERIES = frozenset(
    "5156 4891 5187 330 706 259 221 2132 2143 1972 1978 2361 2373 2331 3228 3746 3765 3342 1405 1430 1325 1355 4738 "
    "4794 4829 4719 883 836 837 861 3952 3878 3943 4023 5511 5504 5561 2174 2198 2186 2203 5193 5239 5223 6905 6909 "
    "6917 3805 3817 3814 3862 6820 6775 6816 6706 6700 6652 2403 2387 2430 6394 6432 6409 6282 4852 4873 4863 4847 "
    "6094 6072 6046 6081 -1071 -991 -5180 -743 -3859 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 "
    "24 25 26 27 28 29".split()
)
"""LeCaRD's 107 labelled queries by ``ridx`` (the keys of its ``label_top30_dict.json``, vendored in
``data/samples/eval/lecard``)."""


@dataclass(frozen=True)
class CollectionShape:
    """What a benchmark's collection looks like as distributed, checked before a run (`check_collection`).

    Args:
        looks_like: the same in words, shown when a collection does not match.
        judged_queries: at most this many judged queries (a sample has fewer); None where it is not known.
        query_ids: the judged query ids where they are known: a collection's must be among them.
        other_query_ids: another benchmark's judged queries on the same documents: none may be among them.
        query_id: a pattern every judged query id matches.
        document_id: a pattern every judged document id matches.
        grades: the grades its judgments use.
        judgments_per_query: at most this many judged documents a query, where the benchmark fixes it.
    """

    looks_like: str
    judged_queries: int | None
    query_ids: frozenset[str] = field(default_factory=frozenset)
    other_query_ids: frozenset[str] = field(default_factory=frozenset)
    query_id: str = r".+"
    document_id: str = r".+"
    grades: tuple[int, ...] = (0, 1, 2, 3)
    judgments_per_query: int | None = None

    def mismatch(self, qrels: dict[str, dict[str, int]]) -> str | None:
        """Why these judgments are not this benchmark's (the first reason found), or None when they may be."""
        if not qrels:
            return "it has no judgments (qrels)"
        if self.judged_queries is not None and len(qrels) > self.judged_queries:
            return f"{len(qrels):,} judged queries, more than its {self.judged_queries:,}"
        outside = [q for q in qrels if self.query_ids and q not in self.query_ids]
        checks = (
            # most of them, not any: a list of known ids is the one part of this check that a typo could break
            ("query ids not its", outside if len(outside) * 2 > len(qrels) else []),
            ("query ids of another benchmark's", [q for q in qrels if q in self.other_query_ids]),
            ("query ids unlike its", [q for q in qrels if not re.fullmatch(self.query_id, q)]),
            (
                "document ids unlike its",
                [d for judged in qrels.values() for d in judged if not re.fullmatch(self.document_id, d)],
            ),
            ("grades it lacks", sorted(grades(qrels) - set(self.grades))),
        )
        for what, found in checks:
            if found:
                return f"{what}: {_examples(found)}"
        if self.judgments_per_query is not None:
            over = [q for q, judged in qrels.items() if len(judged) > self.judgments_per_query]
            if over:
                plural = "s" if self.judgments_per_query > 1 else ""
                return f"more than {self.judgments_per_query} judged document{plural} a query: {_examples(over)}"
        return None


def describe_qrels(qrels: dict[str, dict[str, int]]) -> str:
    """What a collection's judgments look like, in a few words: counts, grades, a document id."""
    if not qrels:
        return "no judgments"
    document = next(d for judged in qrels.values() for d in judged)
    graded = ",".join(map(str, sorted(grades(qrels))))
    return f"{len(qrels):,} judged queries graded {graded}, documents like {document}"


def _examples(items, shown: int = 2) -> str:
    items = [str(item) for item in items]
    return ", ".join(items[:shown]) + (", ..." if len(items) > shown else "")


@dataclass(frozen=True)
class PaperBenchmark:
    """A benchmark of the paper with its settings and figures.

    Args:
        name: the command's name for it (``msmarco-doc-dev``); ``title``: as the paper's ``table`` heads it.
        measures: ir_measures names of the measures the paper reports for it; ``labels``: the paper's (``MRR@10``).
        candidates: what the paper re-ranks (its first stage and depth); ``depth``: candidates re-ranked per query.
        rows: per setting (``zero-shot``, ``fine-tuned``), per model row, the paper's cells in ``measures``' order.
        extra_measures: measured as well, without a paper figure (TREC-COVID's P@5).
        script_cutoffs: nDCG cut-offs also computed as the benchmark's own script computes them (LeCaRD's
            ``metrics.py``, `eval.metrics.lecard`), shown as ``LeCaRD-nDCG@k``.
        collection: what its collection looks like as distributed (checked before a run).
    """

    name: str
    title: str
    table: str
    measures: tuple[str, ...]
    labels: tuple[str, ...]
    candidates: str
    depth: int
    rows: dict[str, dict[str, tuple[str, ...]]]
    extra_measures: tuple[str, ...] = ()
    script_cutoffs: tuple[int, ...] = ()
    collection: CollectionShape | None = None

    def figures(self, setting: str) -> dict[str, list[PaperFigure]]:
        """The paper's rows of ``setting``, each cell parsed.

        Raises:
            ValueError: the paper reports no figures for this benchmark in that setting.
        """
        if setting not in self.rows:
            raise ValueError(
                f"{self.name}: the paper reports it {' and '.join(self.rows)} only ({self.table}), not {setting}"
            )
        return {row: [PaperFigure.parse(cell) for cell in cells] for row, cells in self.rows[setting].items()}

    def all_measures(self) -> list[str]:
        """The paper's measures, then those measured without a paper figure."""
        return [*self.measures, *self.extra_measures]

    def script_measures(self) -> list[str]:
        """The names of the script-computed figures, e.g. ``LeCaRD-nDCG@5``."""
        return [f"LeCaRD-nDCG@{k}" for k in self.script_cutoffs]


_TABLE_2 = {
    # MS MARCO MRR@10, MRR@100, TREC DL 2019 N@10, N@100: zero-shot, then fine-tuned
    "BM25": "0.2656* 0.2767* 0.5315* 0.4996* 0.2656* 0.2767* 0.5315* 0.4996*",
    "QL": "0.2143* 0.2268* 0.5234* 0.4983* 0.2143* 0.2268* 0.5234* 0.4983*",
    "KNRM": "NA NA NA NA 0.1526* 0.1685* 0.3071* 0.4591*",
    "Conv-KNRM": "NA NA NA NA 0.1554* 0.1792* 0.3112* 0.4762*",
    "BERT": "0.1684* 0.1811* 0.3407** 0.4316* 0.3826* 0.3881* 0.6540 0.5325*",
    "PROP_WIKI": "0.2205* 0.2321* 0.4712* 0.4709* 0.3866* 0.3922* 0.6399* 0.5311*",
    "PROP_MS": "0.2585* 0.2696* 0.5203* 0.4810* 0.3930* 0.3980* 0.6425* 0.5318*",
    "Webformer": "0.1664* 0.1756* 0.3758* 0.4550* 0.3984* 0.4036* 0.6479* 0.5335",
    "HARP": "0.2372* 0.2465* 0.5244* 0.4721* 0.3961* 0.4012* 0.6562 0.5337",
    "ARES": "0.2736* 0.2851* 0.5736* 0.4752* 0.3995* 0.4041* 0.6505* 0.5353",
    "Wikiformer": "0.2844 0.2911 0.5907 0.5143 0.4085 0.4136 0.6587 0.5392",
}
_TABLE_3 = {
    # TREC Covid rnd2: zero-shot N@10, fine-tuned N@10
    "QL": "0.4683* 0.4683*",
    "BM25": "0.4792* 0.4792*",
    "BERT": "0.4018* 0.5580*",
    "PROP_MS": "0.4994* 0.5944*",
    "PROP_WIKI": "0.4137* 0.6104*",
    "Webformer": "0.3845* 0.6032*",
    "HARP": "0.4027* 0.5832*",
    "ARES": "0.4993* 0.5969*",
    "Wikiformer": "0.5449 0.6197",
}
_TABLE_4 = {
    # fine-tuned only: LeCaRD N@5, N@15, CAIL-LCR N@5, N@15
    "BM25": "0.6843* 0.7303* 0.7105* 0.7490*",
    "QL": "0.6906* 0.7411* 0.7389* 0.7756*",
    "BERT": "0.7553* 0.7966* 0.7993* 0.8085",
    "Wikiformer": "0.7722 0.8073 0.8095 0.8134",
}


def _rows(table: dict[str, str], **columns: slice) -> dict[str, dict[str, tuple[str, ...]]]:
    """A table's rows as printed, per setting (``zero_shot``, ``fine_tuned``) the cells of that setting's columns."""
    return {
        setting.replace("_", "-"): {row: tuple(text.split()[cells]) for row, text in table.items()}
        for setting, cells in columns.items()
    }


def _table4_benchmark(name: str, title: str, first: int, collection: CollectionShape) -> PaperBenchmark:
    """LeCaRD and CAIL-LCR alike: N@5 and N@15 (also as LeCaRD's script computes them) of the dataset's own 100
    candidates per query."""
    candidates = "the dataset's own 100 candidates per query"
    measures, labels = ("nDCG@5", "nDCG@15"), ("N@5", "N@15")
    rows = _rows(_TABLE_4, fine_tuned=slice(first, first + 2))
    return PaperBenchmark(
        name, title, "Table 4", measures, labels, candidates, 100, rows, script_cutoffs=(5, 15), collection=collection
    )


BENCHMARKS = {
    benchmark.name: benchmark
    for benchmark in (
        PaperBenchmark(
            "msmarco-doc-dev",
            "MS MARCO Document Re-ranking, dev",
            "Table 2",
            ("RR@10", "RR@100"),
            ("MRR@10", "MRR@100"),
            "the official top 100 (msmarco-docdev-top100)",
            100,
            _rows(_TABLE_2, zero_shot=slice(0, 2), fine_tuned=slice(4, 6)),
            collection=CollectionShape(
                "<=5,193 judged queries with numeric ids, one judged document each (grade 1), documents D<number>",
                5193,
                other_query_ids=TREC_DL_2019_JUDGED,
                query_id=r"\d+",
                document_id=r"D\d+",
                grades=(1,),
                judgments_per_query=1,
            ),
        ),
        PaperBenchmark(
            "trec-dl-2019-doc",
            "TREC DL 2019, document ranking",
            "Table 2",
            ("nDCG@10", "nDCG@100"),
            ("N@10", "N@100"),
            "the official top 100 (msmarco-doctest2019-top100)",
            100,
            _rows(_TABLE_2, zero_shot=slice(2, 4), fine_tuned=slice(6, 8)),
            collection=CollectionShape(
                "NIST's 43 judged queries (19335, 47923, ...) graded 0-3, documents D<number>",
                43,
                query_ids=TREC_DL_2019_JUDGED,
                document_id=r"D\d+",
            ),
        ),
        PaperBenchmark(
            "trec-covid-round2",
            "TREC Covid rnd2",
            "Table 3",
            ("nDCG@10",),
            ("N@10",),
            "OpenMatch's BM25-fusion top 60",
            60,
            _rows(_TABLE_3, zero_shot=slice(0, 1), fine_tuned=slice(1, 2)),
            extra_measures=("P@5",),
            # OpenMatch's files name the topics by their own ids: the documents tell the collection
            collection=CollectionShape(
                "<=35 judged topics graded 0-2, CORD-19 documents (cord_uid or cord_uid_N)",
                35,
                document_id=r"(?=[0-9a-z]*[a-z])[0-9a-z]{8}(_\d+)?",
                grades=(0, 1, 2),
            ),
        ),
        _table4_benchmark(
            "lecard",
            "LeCaRD",
            0,
            CollectionShape(
                "LeCaRD's 107 labelled queries (5156, 4891, ...) graded 0-3, <=33 labels each, numeric candidate ids",
                107,
                query_ids=LECARD_QUERIES,
                document_id=r"\d+",
                judgments_per_query=33,
            ),
        ),
        _table4_benchmark(
            "cail-lcr",
            "CAIL-LCR",
            2,
            # CAIL's training queries are LeCaRD's and its test queries are not published: the ids are not checked
            CollectionShape(
                "numeric query ids (ridx) graded 0-3, <=33 labels each, numeric candidate ids",
                None,
                query_id=r"-?\d+",
                document_id=r"\d+",
                judgments_per_query=33,
            ),
        ),
    )
}
"""The paper's benchmarks by the name ``python -m eval paper`` takes."""


def benchmark(name: str) -> PaperBenchmark:
    """The paper's benchmark ``name``; an error listing them for an unknown one."""
    if name not in BENCHMARKS:
        raise ValueError(f"no paper benchmark {name!r}: choose one of {', '.join(BENCHMARKS)}")
    return BENCHMARKS[name]


def check_collection(bench: PaperBenchmark, qrels: dict[str, dict[str, int]], source: str) -> None:
    """Refuse judgments that are not ``bench``'s (another benchmark's collection), naming the benchmark, what its
    collection looks like and what this one looks like; a sample of the benchmark's queries passes.

    Raises:
        ValueError: one line.
    """
    if bench.collection is None:
        return
    why = bench.collection.mismatch(qrels)
    if why is None:
        return
    alike = [other.name for other in BENCHMARKS.values() if other.collection and not other.collection.mismatch(qrels)]
    looks = f" (it looks like {' or '.join(name + chr(39) + 's' for name in alike)})" if alike and qrels else ""
    raise ValueError(
        f"--collection {source}: not {bench.name}'s ({why}); it has {describe_qrels(qrels)}{looks}; "
        f"{bench.name} has {bench.collection.looks_like}; give its collection or a sample of it"
    )


def paper_table(bench: PaperBenchmark, setting: str, measured: dict[str, dict[str, float]], queries: int) -> str:
    """The paper's table for one benchmark and ``setting``, its rows as printed, then the user's ``measured``
    systems (``{label: {measure: mean}}`` over ``queries`` queries)."""
    figures = bench.figures(setting)
    measures = [*bench.all_measures(), *bench.script_measures()]
    labels = [*bench.labels, *bench.extra_measures, *bench.script_measures()]
    lines = [
        f"{bench.title}, {setting} ({bench.table} of the paper; candidates: {bench.candidates})",
        "",
        "| | model | " + " | ".join(labels) + " |",
        "|---|---|" + "---:|" * len(labels),
    ]
    for row, cells in figures.items():
        shown = [str(cell) for cell in cells] + ["" for _ in measures[len(cells) :]]
        lines.append(f"| paper | {row} | " + " | ".join(shown) + " |")
    for label, means in measured.items():
        shown = [f"{means[measure]:.4f}" if measure in means else "" for measure in measures]
        lines.append(f"| this run | {label} | " + " | ".join(shown) + " |")
    lines += [
        "",
        f"The paper's rows as printed (\\* = significantly worse than Wikiformer in the paper, p < 0.05; NA = not "
        f"reported); this run's rows over {queries} queries, trec_eval's measures"
        + (", and nDCG as LeCaRD's metrics.py computes it (LeCaRD-nDCG)." if bench.script_cutoffs else "."),
    ]
    return "\n".join(lines) + "\n"


def paper_figures(bench: PaperBenchmark, setting: str) -> dict[str, dict[str, float | None]]:
    """The paper's figures of ``setting`` as ``{row: {measure: value}}`` (None where the paper has NA)."""
    return {
        row: {measure: cell.value for measure, cell in zip(bench.measures, cells, strict=True)}
        for row, cells in bench.figures(setting).items()
    }
