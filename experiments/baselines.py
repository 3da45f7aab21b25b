"""The paper's comparison at equal budget: Wikiformer vs PROP vs HARP vs BM25, zero-shot, on DL20, Cranfield, NPL.

Its tables: docs/baselines.md and docs/evaluation.md. Each method is built, trained (``release.py --system NAME``,
``experiments/pretraining.py``) and re-ranks the same BM25 candidates at the same budget::

    python -m experiments.baselines --max-steps 100 --max-queries 30 --depth 20 --max-length 256 --output-dir /tmp/bench-baselines

Method: docs/benchmarks.md ("How each experiment runs", ``baselines``).
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from experiments.effectiveness import COLLECTIONS, add_data_argument, load_collections
from experiments.pretraining import pretraining_configs, train_systems
from wikiformer_kit.benchmarks.common import ENWIKI_SAMPLE
from wikiformer_kit.eval.metrics import evaluate_run
from wikiformer_kit.eval.report import combined_markdown_table, compare, latex_table, markdown_table
from wikiformer_kit.eval.rerank import PairScorer, rerank

SYSTEMS = {"Wikiformer": "wikiformer", "PROP": "prop", "HARP": "harp"}
MEASURES = ["nDCG@10", "RR@10", "P@10"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--input",
        nargs="+",
        default=[str(ENWIKI_SAMPLE)],
        help="the corpus every method is built from (default: the vendored enwiki sample)",
    )
    parser.add_argument(
        "--config-dir", default=None, help="a folder with wikiformer.yaml, prop.yaml, harp.yaml (default: the demos')"
    )
    parser.add_argument("--max-steps", type=int, default=100, help="optimizer steps, the same for every method")
    parser.add_argument("--start-model", default="embedded:minilm", help="the start of every pre-training")
    parser.add_argument(
        "--pretrain-set",
        nargs="*",
        default=[],
        metavar="[SYSTEM:]KEY=VALUE",
        help="set a value (YAML) in every demo config or one system's (harp:doc_max_lengths=[128, 128, 128, 64])",
    )
    parser.add_argument("--parallel", action="store_true", help="train the three at once (a GPU with room for them)")
    parser.add_argument("--num-proc", type=int, default=1, help="processes of each dataset build")
    parser.add_argument(
        "--checkpoint",
        nargs="*",
        default=[],
        metavar="NAME=FOLDER",
        help="evaluate a given checkpoint instead of training: wikiformer=, prop= or harp= (e.g. the ones "
        "experiments/finetune_comparison.py pre-trained at one budget)",
    )
    parser.add_argument(
        "--systems", nargs="+", default=list(SYSTEMS.values()), choices=list(SYSTEMS.values()),
        help="the systems compared (without wikiformer, each is tested against BM25)",
    )  # fmt: skip
    add_data_argument(parser)
    parser.add_argument("--collections", nargs="+", default=list(COLLECTIONS), choices=list(COLLECTIONS))
    parser.add_argument("--max-queries", type=int, default=30)
    parser.add_argument("--depth", type=int, default=20)
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--permutations", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--output-dir", default="/tmp/bench-baselines")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    out = Path(args.output_dir).resolve()
    given = dict(item.split("=", 1) for item in args.checkpoint)
    unknown = sorted(set(given) - set(SYSTEMS.values()))
    if unknown:
        parser.error(f"--checkpoint {', '.join(unknown)}: not one of {', '.join(SYSTEMS.values())}")
    to_train = [system for system in args.systems if system not in given]
    if to_train and not args.config_dir:
        args.config_dir = pretraining_configs(
            out / "configs", args.max_steps, args.start_model, overrides=args.pretrain_set
        )
    trained = train_systems(to_train, args, out, parallel=args.parallel) if to_train else {}
    models = {
        label: Path(given[system]).resolve() if system in given else trained[system]
        for label, system in SYSTEMS.items()
        if system in args.systems
    }
    reference = "Wikiformer" if "Wikiformer" in models else "BM25"
    comparisons = []
    for name, (collection, query_ids, candidates) in load_collections(args, out / "eval").items():
        runs = {"BM25": candidates}
        for label, checkpoint in models.items():
            scorer = PairScorer(str(checkpoint), max_length=args.max_length, batch_size=args.batch_size)
            runs[label] = rerank(
                collection, candidates, scorer, out / "eval" / name / f"{label}.run", query_ids=query_ids, tag=label
            )
        qrels = {qid: collection.qrels[qid] for qid in query_ids}
        evaluations = {label: evaluate_run(run, qrels, MEASURES, COLLECTIONS[name][1]) for label, run in runs.items()}
        comparison = compare(
            name, evaluations, MEASURES, reference=reference, permutations=args.permutations, seed=args.seed
        )
        comparison.save_json(out / "eval" / name / "comparison.json")
        (out / "eval" / name / "table.tex").write_text(latex_table(comparison), encoding="utf-8")
        print(markdown_table(comparison))
        comparisons.append(comparison)
    if comparisons:
        table = combined_markdown_table(comparisons, ["nDCG@10", "RR@10"])
        (out / "table.md").write_text(table, encoding="utf-8")
        trained = f"{args.max_steps} steps each from the same start and corpus"
        if given:
            names = ", ".join(sorted(given))
            trained = f"checkpoints given for {names}" + (f", the others {trained}" if to_train else "")
        print(
            f"{trained}; top {args.depth} BM25 candidates re-ranked, "
            f"max length {args.max_length}; * / † = significantly worse / better than {reference}\n\n{table}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
