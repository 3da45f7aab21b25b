"""``python -m eval paper BENCHMARK``: one benchmark of the paper's Tables 2-4 with the user's rows under it."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from wikiformer_kit.cli.options import POSITIONAL, option
from wikiformer_kit.eval.collections import read_trec_run
from wikiformer_kit.eval.commands import rerank
from wikiformer_kit.eval.commands.groups import LongDocumentOptions, RerankingOptions
from wikiformer_kit.eval.commands.shared import load


@dataclass(kw_only=True)
class PaperOptions(LongDocumentOptions, RerankingOptions):
    """one benchmark of the paper's Tables 2-4, written in the paper's layout with its figures beside"""

    benchmark: str = option(
        flags=(POSITIONAL,),
        metavar="BENCHMARK",
        help="msmarco-doc-dev, trec-dl-2019-doc, trec-covid-round2, lecard or cail-lcr (eval/paper_tables.py)",
    )
    model: str = option(required=True, help="checkpoint folder or Hub id")
    setting: Literal["zero-shot", "fine-tuned"] | None = option(
        help="the paper's rows shown beside (default: zero-shot, or fine-tuned where the paper has only those)"
    )
    candidates: str | None = option(
        help="a TREC run file, or a run shipped with the collection (default: the collection's first)"
    )
    k: int | None = option(None, help="candidates per query")  # default: the benchmark's depth
    output_dir: str = option(required=True, help="the runs, metrics.json and paper-table.md are written here")


def run(options: PaperOptions) -> int:
    """Re-rank the benchmark's candidates with the model, measure the paper's measures and write the paper's table
    with the user's rows under it. The collection is checked against the benchmark's before anything is scored; a
    run resumed with other settings or another model's files is scored again, with a warning saying what changed."""
    from wikiformer_kit.eval.paper_tables import benchmark, check_collection, paper_figures, paper_table

    bench = benchmark(options.benchmark)
    setting = options.setting or next(iter(bench.rows))
    bench.figures(setting)  # a setting the paper does not report is refused before anything loads
    own = ("benchmark", "setting")
    shared = {f.name: getattr(options, f.name) for f in dataclasses.fields(options) if f.name not in own}
    # where the collection ships no candidates, BM25 as the paper set it
    paper_bm25 = options.paper_bm25 or (options.first_stage is None and options.k1 is None and options.b is None)
    reranking = rerank.RerankOptions(
        **{**shared, "k": options.k or bench.depth, "paper_bm25": paper_bm25},
        measures=bench.all_measures(),
        fusion="none",
    )
    rerank.check(reranking)
    collection = load(reranking)
    check_collection(bench, collection.qrels, options.collection)
    rerank.rerank_and_evaluate(reranking, collection, on_new_settings="restart")
    out = Path(options.output_dir)
    metrics = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    measured = {label: dict(result["means"]) for label, result in metrics.items()}
    if bench.script_cutoffs:
        _add_script_ndcg(bench, collection.qrels, out, measured)
    queries = max(result.get("num_queries") or 0 for result in metrics.values())
    table = paper_table(bench, setting, measured, queries)
    (out / "paper-table.md").write_text(table, encoding="utf-8")
    record = {"benchmark": bench.name, "setting": setting, "table": bench.table, "queries": queries,
              "paper": paper_figures(bench, setting), "this_run": measured}  # fmt: skip
    (out / "paper-table.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    print(table)
    print(f"wrote {out / 'paper-table.md'}, {out / 'paper-table.json'}")
    return 0


def _add_script_ndcg(bench, qrels, out: Path, measured: dict[str, dict[str, float]]) -> None:
    """Add nDCG as LeCaRD's metrics.py computes it (`eval.metrics.lecard`) to each system's figures, over the
    labelled queries that were ranked, from the runs ``eval rerank`` wrote in ``out``."""
    from wikiformer_kit.eval.metrics.lecard import lecard_ndcg_mean

    for label, means in measured.items():
        run = read_trec_run(out / f"{label}.run")
        labels = {query: qrels[query] for query in run if query in qrels}
        for k, name in zip(bench.script_cutoffs, bench.script_measures(), strict=True):
            means[name] = lecard_ndcg_mean(run, labels, k)
