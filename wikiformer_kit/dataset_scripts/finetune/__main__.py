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
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from wikiformer_kit.cli import KitArgumentParser, one_line_errors
from wikiformer_kit.cli.commands import as_run, public_command
from wikiformer_kit.cli.options import add_option_groups, option, options_from
from wikiformer_kit.dataset_scripts.finetune.options import MiningOptions
from wikiformer_kit.dataset_scripts.hub.report import push_and_report


def _both(flag: str) -> tuple[str, str]:
    """``--kebab-case`` with its ``--snake_case`` alias, both listed in ``--help``."""
    return flag, "--" + flag[2:].replace("-", "_")


@dataclass(frozen=True)
class NegativeArguments:
    """Where candidates come from and which become negatives (:class:`MiningOptions`)."""

    OPTION_GROUP = "negatives"

    first_stage: str = option(
        MiningOptions.first_stage, flags=_both("--first-stage"), help="bm25, dense, given, a run's name, or a run file"
    )
    depth: int = option(MiningOptions.depth, help="candidates retrieved per query")
    min_rank: int = option(
        MiningOptions.min_rank, flags=_both("--min-rank"), help="best rank a negative may have (1-based)"
    )
    max_rank: int | None = option(flags=_both("--max-rank"), help="worst rank a negative may have (default: depth)")
    num_negatives: int = option(
        MiningOptions.num_negatives, flags=_both("--num-negatives"), help="negatives kept per group (at most)"
    )
    sampling: Literal["random", "top"] = option(MiningOptions.sampling, help="which negatives of the window")
    seed: int = option(MiningOptions.seed, help="seed of the random draw")
    k1: float = option(MiningOptions.k1, help="BM25 k1 (the paper's first stage: 3.8)")
    b: float = option(MiningOptions.b, help="BM25 b (the paper's first stage: 0.87)")
    no_stemming: bool = option(False, flags=_both("--no-stemming"), help="BM25 without the Snowball English stemmer")
    stopwords: str = option(MiningOptions.stopwords, help="BM25 stopwords: 'en', 'none', or a file of words")
    shard_queries: int = option(
        MiningOptions.shard_queries, flags=_both("--shard-queries"), help="queries per output shard"
    )


@dataclass(frozen=True)
class FilterArguments:
    OPTION_GROUP = "false-negative filter"

    filter_model: str | None = option(
        flags=_both("--filter-model"), help="a cross-encoder that scores the positive and the candidates"
    )
    absolute_margin: float | None = option(
        flags=_both("--absolute-margin"), help="keep a candidate scored <= positive - margin"
    )
    relative_margin: float | None = option(
        flags=_both("--relative-margin"), help="keep a candidate scored <= positive - |positive| x margin"
    )
    filter_max_length: int | None = option(
        flags=_both("--filter-max-length"), help="pair length in tokens (default: the model's)"
    )


@dataclass(frozen=True)
class HubArguments:
    OPTION_GROUP = "Hub"

    push_to_hub: str | None = option(
        flags=_both("--push-to-hub"), metavar="NAMESPACE", help="push to NAMESPACE/<repo-name>"
    )
    repo_name: str | None = option(flags=_both("--repo-name"), help="default: <collection name>-finetune")
    private: bool = option(False, help="create the repo private")
    license: str = option("other", help="the source's licence id for the card")


@dataclass(frozen=True, kw_only=True)
class FinetuneCommandOptions(NegativeArguments, FilterArguments, HubArguments):
    """The command line of ``python -m dataset_scripts.finetune`` (see the module docstring)."""

    collection: str = option(required=True, help="a collection (FOLDER, FORMAT:PATH, files; #part) or triples")
    output_dir: Path = option(required=True, flags=_both("--output-dir"), help="the dataset folder written")
    relevance_level: int | None = option(
        flags=_both("--relevance-level"), help="smallest grade of a positive (default: the collection's)"
    )
    overwrite: bool = option(False, help="start again where OUT holds another run")

    def mining_options(self) -> MiningOptions:
        """The mining run asked for (``ValueError`` on inconsistent values)."""
        stopwords = None if self.stopwords == "none" else self.stopwords
        return options_from(MiningOptions, self, stemmer=None if self.no_stemming else "english", stopwords=stopwords)


def parse_options(argv: list[str] | None = None) -> FinetuneCommandOptions:
    """The command line (see the module docstring)."""
    parser = KitArgumentParser(
        prog="python -m dataset_scripts.finetune",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    add_option_groups(parser, FinetuneCommandOptions)
    options = options_from(FinetuneCommandOptions, parser.parse_args(argv))
    if (options.private or options.repo_name) and not options.push_to_hub:
        parser.error("--private and --repo-name only make sense with --push-to-hub")
    return options


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

    args = parse_options(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        options = args.mining_options()
        source = load_source(args.collection, args.relevance_level)
    except (ValueError, FileNotFoundError, CollectionFormatError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    repo_id = f"{args.push_to_hub}/{args.repo_name or _repo_name(source.name)}" if args.push_to_hub else None
    info = {
        "command": public_command(
            "python -m dataset_scripts.finetune",
            argv if argv is not None else sys.argv[1:],
            lambda a: Path(a.split("#")[0]).exists(),  # a collection with its query part
        ),
        "repo_id": repo_id,
        "license": args.license,
    }
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


if __name__ == "__main__":
    sys.exit(main())
