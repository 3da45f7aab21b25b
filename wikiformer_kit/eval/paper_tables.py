"""The Wikiformer paper's benchmarks (Su et al., AAAI 2024, Tables 2-4) as data: each benchmark's measures, first
stage and depth, and the paper's own figures, row by row, as printed (``*``: significantly worse than Wikiformer,
p < 0.05; ``NA``: not reported), so that ``python -m eval paper BENCHMARK`` prints a user's figures beside them.

The measures are ir_measures names (``RR@10`` is the paper's MRR@10, ``nDCG@10`` its N@10). The paper's text names
P@5 and nDCG@10 for TREC-COVID, but its Table 3 prints nDCG@10 only: P@5 is measured and has no paper figure.
"""

from __future__ import annotations

from dataclasses import dataclass

SETTINGS = ("zero-shot", "fine-tuned")
PAPER = "Wikiformer: Pre-training with Structured Information of Wikipedia for Ad-hoc Retrieval (AAAI 2024)"


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


@dataclass(frozen=True)
class PaperBenchmark:
    """A benchmark of the paper with its settings and figures.

    Args:
        name: the command's name for it (``msmarco-doc-dev``).
        title: what it is, as the paper's table heads it.
        table: where the figures are (``Table 2``).
        measures: ir_measures names of the measures the paper reports for it.
        labels: the paper's names of those measures (``MRR@10``).
        candidates: what the paper re-ranks (its first stage and depth).
        depth: candidates re-ranked per query.
        rows: per setting (``zero-shot``, ``fine-tuned``), per model row, the paper's cells in ``measures``' order.
        extra_measures: measured as well, without a paper figure (TREC-COVID's P@5).
        script_cutoffs: nDCG cut-offs also computed as the benchmark's own script computes them (LeCaRD's
            ``metrics.py``, `eval.metrics.lecard`), shown as ``LeCaRD-nDCG@k``.
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


def _table2_rows(column: slice) -> dict[str, dict[str, tuple[str, ...]]]:
    # Table 2, every row as printed: MS MARCO MRR@10, MRR@100, TREC DL 2019 N@10, N@100, zero-shot then fine-tuned
    table = {
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
    cells = {row: text.split() for row, text in table.items()}
    zero_shot = {row: tuple(values[:4][column]) for row, values in cells.items()}
    fine_tuned = {row: tuple(values[4:][column]) for row, values in cells.items()}
    return {"zero-shot": zero_shot, "fine-tuned": fine_tuned}


def _table3_rows() -> dict[str, dict[str, tuple[str, ...]]]:
    # Table 3, TREC Covid rnd2: zero-shot N@10, fine-tuned N@10
    table = {
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
    cells = {row: text.split() for row, text in table.items()}
    return {
        "zero-shot": {row: (values[0],) for row, values in cells.items()},
        "fine-tuned": {row: (values[1],) for row, values in cells.items()},
    }


def _table4_rows(column: slice) -> dict[str, dict[str, tuple[str, ...]]]:
    # Table 4, fine-tuned only: LeCaRD N@5, N@15, CAIL-LCR N@5, N@15
    table = {
        "BM25": "0.6843* 0.7303* 0.7105* 0.7490*",
        "QL": "0.6906* 0.7411* 0.7389* 0.7756*",
        "BERT": "0.7553* 0.7966* 0.7993* 0.8085",
        "Wikiformer": "0.7722 0.8073 0.8095 0.8134",
    }
    return {"fine-tuned": {row: tuple(text.split()[column]) for row, text in table.items()}}


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
            _table2_rows(slice(0, 2)),
        ),
        PaperBenchmark(
            "trec-dl-2019-doc",
            "TREC DL 2019, document ranking",
            "Table 2",
            ("nDCG@10", "nDCG@100"),
            ("N@10", "N@100"),
            "the official top 100 (msmarco-doctest2019-top100)",
            100,
            _table2_rows(slice(2, 4)),
        ),
        PaperBenchmark(
            "trec-covid-round2",
            "TREC Covid rnd2",
            "Table 3",
            ("nDCG@10",),
            ("N@10",),
            "OpenMatch's BM25-fusion top 60",
            60,
            _table3_rows(),
            extra_measures=("P@5",),
        ),
        PaperBenchmark(
            "lecard",
            "LeCaRD",
            "Table 4",
            ("nDCG@5", "nDCG@15"),
            ("N@5", "N@15"),
            "the dataset's own 100 candidates per query",
            100,
            _table4_rows(slice(0, 2)),
            script_cutoffs=(5, 15),
        ),
        PaperBenchmark(
            "cail-lcr",
            "CAIL-LCR",
            "Table 4",
            ("nDCG@5", "nDCG@15"),
            ("N@5", "N@15"),
            "the dataset's own 100 candidates per query",
            100,
            _table4_rows(slice(2, 4)),
            script_cutoffs=(5, 15),
        ),
    )
}
"""The paper's benchmarks by the name ``python -m eval paper`` takes."""


def benchmark(name: str) -> PaperBenchmark:
    """The paper's benchmark ``name``; an error listing them for an unknown one."""
    if name not in BENCHMARKS:
        raise ValueError(f"no paper benchmark {name!r}: choose one of {', '.join(BENCHMARKS)}")
    return BENCHMARKS[name]


def paper_table(bench: PaperBenchmark, setting: str, measured: dict[str, dict[str, float]], queries: int) -> str:
    """The paper's table for one benchmark and setting, its rows as printed, then the user's rows.

    Args:
        bench: the benchmark.
        setting: ``zero-shot`` or ``fine-tuned``.
        measured: the user's systems (``{label: {measure: mean}}``), shown under the paper's rows.
        queries: the number of queries the user's figures average over.
    """
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
