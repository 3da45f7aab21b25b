"""Turn a labelled collection into fine-tuning groups with negatives mined from a first stage.

Usage::

    python -m dataset_scripts.finetune --collection irds:cranfield#train --output-dir output/cran-groups
    python -m dataset_scripts.finetune --collection msmarco/collection.tsv,msmarco/queries.train.tsv,msmarco/qrels.train.tsv \\
        --output-dir output/msmarco-groups --depth 100 --min-rank 10 [--first-stage msmarco/top1000.train.run]
    python -m dataset_scripts.finetune --collection msmarco/triples.train.small.tsv --output-dir output/msmarco-triples
    ... [--filter-model CROSS_ENCODER --absolute-margin 0.5] [--push-to-hub NAMESPACE [--repo-name NAME]]

``--collection`` is any collection ``python -m eval`` reads (a folder, an archive, ``FORMAT:PATH``, comma-separated
files), with an optional query part (``#train``; see ``eval/splits.py``), or an MS MARCO triples TSV
(``triples:PATH``, or a file of three tab-separated texts a line). The output is a Hugging Face dataset folder
(``query, positive, negatives`` Parquet shards, ``mining_stats.json``, a card) that ``train.py --train_datasets``
reads. A rerun of the same command resumes at the first shard not written.
"""

from __future__ import annotations

import argparse
import logging
import os
import shlex
import sys
from pathlib import Path

from wikiformer_kit.cli import KitArgumentParser, one_line_errors
from wikiformer_kit.cli.commands import as_run
from wikiformer_kit.dataset_scripts.finetune.options import MiningOptions
from wikiformer_kit.dataset_scripts.hub.report import push_and_report


def _flag(group, name: str, **kwargs) -> None:
    """``--kebab-case`` with its ``--snake_case`` alias."""
    names = [name] + (["--" + name[2:].replace("-", "_")] if "-" in name[2:] else [])
    group.add_argument(*names, **kwargs)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    d = MiningOptions()
    parser = KitArgumentParser(
        prog="python -m dataset_scripts.finetune",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    _flag(parser, "--collection", required=True, help="a collection (FOLDER, FORMAT:PATH, files; #part) or triples")
    _flag(parser, "--output-dir", required=True, type=Path, help="the dataset folder written")
    _flag(parser, "--relevance-level", type=int, help="smallest grade of a positive (default: the collection's)")
    _flag(parser, "--overwrite", action="store_true", help="start again where OUT holds another run")
    mining = parser.add_argument_group("negatives")
    _flag(mining, "--first-stage", default=d.first_stage, help="bm25, dense, given, a run's name, or a run file")
    _flag(mining, "--depth", type=int, default=d.depth, help="candidates retrieved per query")
    _flag(mining, "--min-rank", type=int, default=d.min_rank, help="best rank a negative may have (1-based)")
    _flag(mining, "--max-rank", type=int, default=d.max_rank, help="worst rank a negative may have (default: depth)")
    _flag(mining, "--num-negatives", type=int, default=d.num_negatives, help="negatives kept per group (at most)")
    _flag(mining, "--sampling", choices=("random", "top"), default=d.sampling, help="which negatives of the window")
    _flag(mining, "--seed", type=int, default=d.seed, help="seed of the random draw")
    _flag(mining, "--k1", type=float, default=d.k1, help="BM25 k1 (the paper's first stage: 3.8)")
    _flag(mining, "--b", type=float, default=d.b, help="BM25 b (the paper's first stage: 0.87)")
    _flag(mining, "--no-stemming", action="store_true", help="BM25 without the Snowball English stemmer")
    _flag(mining, "--stopwords", default=d.stopwords, help="BM25 stopwords: 'en', 'none', or a file of words")
    _flag(mining, "--shard-queries", type=int, default=d.shard_queries, help="queries per output shard")
    filtering = parser.add_argument_group("false-negative filter")
    _flag(filtering, "--filter-model", help="a cross-encoder that scores the positive and the candidates")
    _flag(filtering, "--absolute-margin", type=float, help="keep a candidate scored <= positive - margin")
    _flag(filtering, "--relative-margin", type=float, help="keep a candidate scored <= positive - |positive| x margin")
    _flag(filtering, "--filter-max-length", type=int, help="pair length in tokens (default: the model's)")
    hub = parser.add_argument_group("Hub")
    _flag(hub, "--push-to-hub", metavar="NAMESPACE", help="push to NAMESPACE/<repo-name>")
    _flag(hub, "--repo-name", help="default: <collection name>-finetune")
    _flag(hub, "--private", action="store_true", help="create the repo private")
    _flag(hub, "--license", default="other", help="the source's licence id for the card")
    args = parser.parse_args(argv)
    if (args.private or args.repo_name) and not args.push_to_hub:
        parser.error("--private and --repo-name only make sense with --push-to-hub")
    return args


def options_from_args(args: argparse.Namespace) -> MiningOptions:
    """The :class:`MiningOptions` of a parsed command line (raises ValueError on inconsistent values)."""
    return MiningOptions(
        first_stage=args.first_stage,
        depth=args.depth,
        min_rank=args.min_rank,
        max_rank=args.max_rank,
        num_negatives=args.num_negatives,
        sampling=args.sampling,
        seed=args.seed,
        k1=args.k1,
        b=args.b,
        stemmer=None if args.no_stemming else "english",
        stopwords=None if args.stopwords == "none" else args.stopwords,
        filter_model=args.filter_model,
        absolute_margin=args.absolute_margin,
        relative_margin=args.relative_margin,
        filter_max_length=args.filter_max_length,
        shard_queries=args.shard_queries,
    )


def push(folder: Path, repo_id: str, private: bool) -> str:
    """Upload the groups, card and statistics (not the ``.work`` resume files); returns the commit URL."""
    from wikiformer_kit.dataset_scripts.hub.publish import push_dataset_folder

    return push_dataset_folder(
        folder,
        repo_id,
        private=private,
        commit_message=f"Upload {repo_id}: fine-tuning groups built by the Wikiformer kit",
        ignore_patterns=[".work/**", ".work/*"],
    )


@one_line_errors
def main(argv: list[str] | None = None) -> int:
    """Mine; 0 on success (and pushed if asked), 1 when no group came out or a push failed, 2 on bad input."""
    from wikiformer_kit.dataset_scripts.finetune.build import build_groups
    from wikiformer_kit.dataset_scripts.finetune.output import RunMismatchError
    from wikiformer_kit.dataset_scripts.finetune.sources import load_source
    from wikiformer_kit.eval.collections.errors import CollectionFormatError

    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        options = options_from_args(args)
        source = load_source(args.collection, args.relevance_level)
    except (ValueError, FileNotFoundError, CollectionFormatError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    repo_id = f"{args.push_to_hub}/{args.repo_name or _repo_name(source.name)}" if args.push_to_hub else None
    info = {"command": _public_command(argv if argv is not None else sys.argv[1:]), "repo_id": repo_id}
    info["license"] = args.license
    try:
        public = build_groups(source, args.output_dir, options, overwrite=args.overwrite, info=info)
    except RunMismatchError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    stats = public["statistics"]
    n = stats["negatives per group"]
    print(
        f"{n['count']:,} groups, {n['total'] / max(n['count'], 1):.1f} negatives a group, written to "
        + as_run(f"{args.output_dir} (train with: python train.py ... --train_datasets {args.output_dir})")
    )
    left_out = {k: v for k, v in stats["counts"].items() if k not in ("groups", "queries read", "lines read") and v}
    if left_out:
        print("left out: " + ", ".join(f"{k} {v:,}" for k, v in left_out.items()))
    if repo_id:
        if not push_and_report(args.output_dir, repo_id, lambda: push(args.output_dir, repo_id, args.private)):
            return 1
    return 0


def _repo_name(name: str) -> str:
    stem = "".join(c if c.isalnum() or c in "-_." else "-" for c in Path(name).stem).strip("-.") or "collection"
    return f"{stem}-finetune"


def _public_command(argv: list[str]) -> str:
    """The command line for the card, local paths reduced to their last component (cards are published)."""
    shown = [Path(a).name if os.sep in a and Path(a.split("#")[0]).exists() else a for a in argv]
    return as_run("python -m dataset_scripts.finetune " + " ".join(shlex.quote(a) for a in shown))


if __name__ == "__main__":
    sys.exit(main())
