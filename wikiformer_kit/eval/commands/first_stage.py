"""``python -m eval first-stage``: retrieve candidates and write a TREC run (its figures printed where judged)."""

from __future__ import annotations

from dataclasses import dataclass

from wikiformer_kit.cli.options import option
from wikiformer_kit.eval.collections import write_trec_run
from wikiformer_kit.eval.commands.groups import FIRST_STAGE_HELP, CollectionOptions, RetrievalOptions
from wikiformer_kit.eval.commands.shared import first_stage_run, load, print_means, query_ids
from wikiformer_kit.eval.metrics import DEFAULT_MEASURES, evaluate_run


@dataclass(kw_only=True)
class FirstStageOptions(RetrievalOptions, CollectionOptions):
    """retrieve candidates and write a TREC run"""

    method: str | None = option(help=FIRST_STAGE_HELP)
    output: str = option(required=True, help="TREC run file to write")
    measures: list[str] = option(list(DEFAULT_MEASURES), help="measures printed (ir_measures names)")


def run(options: FirstStageOptions) -> int:
    """Write the first stage's run; print its figures where the collection has judgments."""
    collection = load(options)
    ranking = first_stage_run(options, collection, options.method, query_ids(collection, options.max_queries))
    write_trec_run(ranking, options.output, tag=options.method)
    print(f"wrote {options.output}: {len(ranking)} queries")
    if collection.qrels:
        checks = {"source": str(options.output), "documents": set(collection.documents)}
        evaluation = evaluate_run(ranking, collection.qrels, options.measures, collection.relevance_level, **checks)
        print_means(options.method, evaluation.means())
    return 0
