"""``python -m eval nanobeir MODEL``: NanoBEIR re-ranking figures as re-ranker model cards report them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from wikiformer_kit.cli import InputError
from wikiformer_kit.cli.options import POSITIONAL, option
from wikiformer_kit.eval.commands.groups import LongDocumentOptions, ScoringOptions
from wikiformer_kit.eval.commands.shared import load_scorer


@dataclass(kw_only=True)
class NanoBEIROptions(LongDocumentOptions, ScoringOptions):
    """NanoBEIR re-ranking figures as re-ranker model cards report them (sentence-transformers' keys)"""

    model: str | None = option(
        None, flags=(POSITIONAL,), nargs="?", metavar="MODEL", help="checkpoint folder or Hub id"
    )
    model_option: str | None = option(flags=("--model",), help="the same as MODEL")
    sets: list[str] | None = option(
        help="NanoBEIR sets by short name (msmarco, nfcorpus, nq, ...; default: all but arguana and touche2020), or "
        "the splits of the --data dataset (default: all of them, e.g. NanoWIKIR_en)"
    )
    data: str | None = option(
        help="a NanoBEIR dataset: a Hub id (default sentence-transformers/NanoBEIR-en) or a local folder of the same "
        "layout (subsets corpus, queries, qrels, bm25; splits Nano{Set})"
    )
    rerank_k: int = option(100, help="BM25 candidates re-ranked per query")
    at_k: int = option(10, help="cut-off of MRR and nDCG")
    bm25_only: bool = option(
        False, help="re-rank BM25's candidates only (default: with the positives it missed added, the cards' setting)"
    )
    activation: Literal["auto", "sigmoid", "identity"] = option(
        "auto",
        help="what the pair scores are ranked as (auto: as CrossEncoder.predict returns them, the cards' figures)",
    )
    output_dir: str | None = option(help="write OUT/nanobeir.json (the settings and the figures)")

    def __post_init__(self):
        self.model = self.model or self.model_option  # MODEL or --model MODEL
        if not self.model:
            raise InputError("python -m eval nanobeir: give the checkpoint, MODEL or --model MODEL")


def check_data(options: NanoBEIROptions) -> None:
    """Refuse NanoBEIR data that cannot be read before it is fetched: a Hub id neither cached nor reachable (one
    line, at once, instead of the loaders' retries), or a local folder without the bm25 subset."""
    from wikiformer_kit.cli.hub_access import in_hub_cache
    from wikiformer_kit.eval.nanobeir import DEFAULT_DATASET_ID, check_set_names, split_name
    from wikiformer_kit.eval.preflight import check_dataset_layout, check_hub_repo, looks_local

    data = str(options.data or DEFAULT_DATASET_ID)
    what = f"--data {data}" if options.data else f"the NanoBEIR data {data} (--data)"
    path = Path(data).expanduser()
    layout = "give a Hub dataset id or a local folder of NanoBEIR's layout (subsets corpus, queries, qrels, bm25)"
    if options.sets:
        check_set_names(options.sets, data)  # a set NanoBEIR does not have is refused before anything is fetched
    if path.exists() and not path.is_dir():
        raise InputError(f"{what}: a file, not a folder; {layout}")
    if not path.exists() and looks_local(data):
        raise InputError(f"{what}: no such folder; {layout}")
    if not path.exists():
        if in_hub_cache(data, "dataset"):
            return  # read from the cache by the loader; listing it here could wait on a network that is not there
        check_hub_repo(data, "dataset", what, "give --data FOLDER, a local copy of the same layout")
    splits = [split_name(name) for name in options.sets or ()]
    check_dataset_layout(data, ("corpus", "queries", "qrels", "bm25"), what, splits, "bm25")


def run(options: NanoBEIROptions) -> int:
    """Score the NanoBEIR sets' candidates with the model; print the figures and write them where asked."""
    check_data(options)  # first: before the imports of torch and the scorer, which take seconds

    from wikiformer_kit.eval.hub_results import nanobeir_hub_results, write_eval_results
    from wikiformer_kit.eval.nanobeir import DEFAULT_DATASET_ID, NanoBEIREvaluator
    from wikiformer_kit.eval.nanobeir_report import NanoBEIRRecord

    long_documents = options.long_document_setting()
    data = options.data or DEFAULT_DATASET_ID
    depth = {"rerank_k": options.rerank_k, "at_k": options.at_k, "always_rerank_positives": not options.bm25_only}
    evaluator = NanoBEIREvaluator(options.sets, data, activation=options.activation, **depth)
    scorer = load_scorer(options)
    if long_documents.mode != "firstp":
        from wikiformer_kit.eval.rerank.long_documents import PassageScorer

        scorer = PassageScorer(scorer, long_documents)
    settings = {"max_length": scorer.max_length, "long_documents": long_documents.to_dict()}
    results = evaluator(scorer)
    record = NanoBEIRRecord(
        options.model, str(data), evaluator.dataset_names, **depth, results=results, settings=settings
    )
    print(record.markdown_table())
    print(f"{record.primary_metric}: {record.results[record.primary_metric]:.4f}")
    if options.output_dir:
        print(f"wrote {record.save(options.output_dir)}")
        for path in write_eval_results(options.output_dir, nanobeir_hub_results(record)):
            print(f"wrote {path} (the Hub's evaluation results format)")
    return 0
