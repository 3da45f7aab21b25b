"""Build a WIKIR ad-hoc retrieval collection from a Wikipedia dump or a built corpus.

Usage::

    python -m dataset_scripts.wikir [--input] enwiki-latest-pages-articles.xml.bz2 --output-dir wikir-en \\
        [--title-queries] [--skip-first-sentence] [--lowercase] [--first-sentence-links] [--num-proc 8] \\
        [--push-to-hub NAMESPACE [--repo-name wikir-en] [--private]]

writes a Hugging Face dataset in the BEIR layout (configs ``corpus``, ``queries``, ``qrels`` per split,
``triples`` for fine-tuning) with its card, and one TREC collection folder per split (``train/``,
``validation/``, ``test/``: topics, qrels, BM25 run and its trec_eval figures) that ``python -m eval`` reads.
Raw inputs are first built into a corpus (``dataset_scripts.corpus``) in ``<output>/.build/corpus``; a built
corpus folder is read as it is. The defaults are the original builder's (getalp/wikIR).
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

from wikiformer_kit.cli import KitArgumentParser, one_line_errors
from wikiformer_kit.cli.commands import as_run
from wikiformer_kit.dataset_scripts.corpus.arguments import add_corpus_arguments, corpus_options
from wikiformer_kit.dataset_scripts.corpus.folder import corpus_language, is_corpus_dir
from wikiformer_kit.dataset_scripts.corpus.formats.base import CorpusFormatError
from wikiformer_kit.dataset_scripts.executors import add_executor_arguments, executor_options
from wikiformer_kit.dataset_scripts.hub.report import push_and_report
from wikiformer_kit.dataset_scripts.tasks.corpus_units import corpus_files
from wikiformer_kit.dataset_scripts.wikir.build import WikirParametersError, build_wikir, prepare_corpus
from wikiformer_kit.dataset_scripts.wikir.export import FORMATS
from wikiformer_kit.dataset_scripts.wikir.nano import export_nano, is_wikir_dir
from wikiformer_kit.dataset_scripts.wikir.options import WikirOptions


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (see the module docstring); the original builder's flag is given in each help."""
    d = WikirOptions()
    parser = KitArgumentParser(
        prog="python -m dataset_scripts.wikir",
        description=__doc__.split("\n\n")[0],
        input_help="dump/corpus files, or a corpus folder",
        input_type=Path,
    )
    parser.add_argument("--output-dir", required=True, type=Path, help="where the collection is written")
    parser.add_argument("--name", default=None, help="collection name in the card (default: WIKIR (<language>))")
    parser.add_argument("--note", default=None, help="a note for the card (e.g. relaxed parameters)")
    parser.add_argument("--articles-per-unit", type=int, default=1000, help="articles per extraction unit")
    add_executor_arguments(parser)
    add_corpus_arguments(parser)
    parser.add_argument("--max-articles", type=int, default=None, help="read only the first N corpus articles [-m]")
    parser.add_argument(
        "--random-sample", action="store_true", help="--max-articles draws N random articles (seeded), as -m does"
    )
    parser.add_argument(
        "--export",
        nargs="+",
        choices=FORMATS,
        default=[],
        help="also write the original's layouts under OUT/original: csv (its default), json [-j], xml [-x]",
    )
    wikir = parser.add_argument_group("WIKIR (original flag in brackets)")
    wikir.add_argument("--min-length", type=int, default=d.min_length, help="min words per article [-l]")
    wikir.add_argument("--doc-length", type=int, default=d.doc_length, help="words kept; link window [-d]")
    wikir.add_argument("--query-length", type=int, default=d.query_length, help="words kept per query [-q]")
    wikir.add_argument("--min-links", type=int, default=d.min_links, help="min linking documents per query [-e]")
    wikir.add_argument("--first-sentence-links", action="store_true", help="only first-sentence links [-f]")
    wikir.add_argument("--title-queries", action="store_true", help="title queries, not first sentences [-i]")
    wikir.add_argument("--skip-first-sentence", action="store_true", help="drop the first sentence of documents [-s]")
    wikir.add_argument("--lowercase", action="store_true", help="lower-case documents and queries [-c]")
    wikir.add_argument("--keep-non-alphanumeric", action="store_true", help="keep punctuation")
    wikir.add_argument("--validation-size", type=int, default=d.validation_size, help="[-v]")
    wikir.add_argument("--test-size", type=int, default=d.test_size, help="[-t]")
    wikir.add_argument("--seed", type=int, default=d.seed, help="query shuffle seed [-r]")
    wikir.add_argument("--bm25-k", type=int, default=d.bm25_k, help="BM25 documents per query [-k]")
    wikir.add_argument("--k1", type=float, default=d.k1, help="BM25 k1")
    wikir.add_argument("--b", type=float, default=d.b, help="BM25 b")
    wikir.add_argument("--stemmer", default=d.stemmer, help="Snowball language, auto (corpus language) or none")
    wikir.add_argument("--stopwords", default=d.stopwords, help="bm25s stopword language, auto or none")
    wikir.add_argument("--train-negatives", type=int, default=d.train_negatives, help="BM25 negatives per triple")
    wikir.add_argument("--keep-disambiguation", action="store_true", help="keep disambiguation pages as documents")
    wikir.add_argument(
        "--whole-documents",
        action="store_true",
        help="documents are whole articles, not their first --doc-length words (links still count in those words)",
    )
    nano = parser.add_argument_group(
        "NanoBEIR layout (python -m eval nanobeir --data, sentence-transformers' evaluators)"
    )
    nano.add_argument(
        "--nano",
        type=int,
        metavar="SIZE",
        help="also write the test split as a NanoBEIR-layout dataset of SIZE queries in OUT/nano; given built WIKIR "
        "collections as inputs, write theirs (a set per language) in OUT instead of building",
    )
    nano.add_argument("--nano-seed", type=int, default=42, help="seed of the queries drawn for --nano")
    hub = parser.add_argument_group("Hub")
    hub.add_argument("--push-to-hub", metavar="NAMESPACE", default=None, help="push to NAMESPACE/<repo-name>")
    hub.add_argument("--repo-name", default=None, help="default: wikir-<language>")
    hub.add_argument("--private", action="store_true")
    args = parser.parse_args(argv)
    if (args.private or args.repo_name) and not args.push_to_hub:
        parser.error("--private and --repo-name only make sense with --push-to-hub")
    return args


def options_from_args(args: argparse.Namespace) -> WikirOptions:
    """The :class:`WikirOptions` of a parsed command line."""
    fields = WikirOptions.__dataclass_fields__
    return WikirOptions(**{name: getattr(args, name) for name in fields})


def push(folder: Path, repo_id: str, private: bool) -> str:
    """Upload the collection (not its ``.build`` work files, nor a ``nano`` export, a dataset of its own) to a dataset
    repo; returns the commit URL."""
    from wikiformer_kit.dataset_scripts.hub.publish import push_dataset_folder

    return push_dataset_folder(
        folder,
        repo_id,
        private=private,
        commit_message=f"Upload {repo_id} built by the Wikiformer kit (WIKIR)",
        ignore_patterns=[".build/**", ".build/*", "nano/**", "nano/*"],
        delete_patterns=["*.parquet", "*/*.parquet"],
    )


@one_line_errors
def main(argv: list[str] | None = None) -> int:
    """Run the build; 0 when the collection has queries (and was pushed if asked), 1 when it is empty or a push
    failed, 2 on bad parameters."""
    args = parse_args(argv)
    if args.nano is not None and args.nano < 1:
        print("error: --nano takes the number of queries per set (at least 1)", file=sys.stderr)
        return 2
    if args.nano and all(is_wikir_dir(path) for path in args.input):
        return export_only(args)
    try:
        options = options_from_args(args)
        corpus, executor = corpus_options(args), executor_options(args)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    made_here = not args.output_dir.exists()
    args.output_dir.mkdir(parents=True, exist_ok=True)
    try:
        corpus_dir, source = prepare_corpus(args.input, args.output_dir, corpus, executor)
    except CorpusFormatError:  # nothing readable: raised before anything is written, so leave no folder either
        if made_here and not any(args.output_dir.iterdir()):
            args.output_dir.rmdir()
        raise
    info = {"source": source, "command": _public_command(argv if argv is not None else sys.argv[1:]), "note": args.note}
    if args.name:
        info["name"] = args.name
    language = corpus_language(corpus_files(corpus_dir)[0][0]) if is_corpus_dir(corpus_dir) else ""
    repo_id = f"{args.push_to_hub}/{args.repo_name or 'wikir-' + (language or 'xx')}" if args.push_to_hub else None
    info["repo_id"] = repo_id
    try:
        summary = build_wikir(
            corpus_dir,
            args.output_dir,
            options,
            executor=executor,
            articles_per_unit=args.articles_per_unit,
            max_articles=args.max_articles,
            random_sample=args.random_sample,
            export_formats=args.export,
            info=info,
        )
    except (WikirParametersError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if not summary:
        print(f"jobs submitted; rerun the same command when they are done ({args.output_dir})")
        return 0
    queries = summary["queries"]
    print(f"{summary['documents']:,} documents; queries: " + ", ".join(f"{s} {n:,}" for s, n in queries.items()))
    for split, figure in summary["bm25"].items():
        print(f"BM25 {split}: " + ", ".join(f"{m} {v:.4f}" for m, v in figure["means"].items()))
    print(f"written to {args.output_dir} (load with datasets.load_dataset({str(args.output_dir)!r}, 'corpus'))")
    if not sum(queries.values()):
        reasons = ", ".join(f"{k}: {v:,}" for k, v in summary["stats"].items())
        hint = (
            "the corpus records no link in the counted window (WikiExtractor output without --links has none)"
            if not summary["stats"].get("links counted")
            else f"lower --min-links ({options.min_links}) or --min-length ({options.min_length}) for a small corpus"
        )
        print(
            f"no article qualified as a query ({reasons}); the collection in {args.output_dir} has no query: {hint}",
            file=sys.stderr,
        )
        return 1
    if args.nano:
        print(nano_line(export_nano([args.output_dir], args.output_dir / "nano", args.nano, args.nano_seed)))
    if args.push_to_hub:
        if not push_and_report(args.output_dir, repo_id, lambda: push(args.output_dir, repo_id, args.private)):
            return 1
    return 0


def export_only(args: argparse.Namespace) -> int:
    """``--nano`` over built WIKIR collections: their NanoBEIR-layout dataset in OUT (pushed if asked)."""
    summary = export_nano(args.input, args.output_dir, args.nano, args.nano_seed)
    print(nano_line(summary))
    if args.push_to_hub:
        repo_id = f"{args.push_to_hub}/{args.repo_name or 'NanoWIKIR'}"
        if not push_and_report(args.output_dir, repo_id, lambda: push(args.output_dir, repo_id, args.private)):
            return 1
    return 0


def nano_line(summary: dict) -> str:
    sets = ", ".join(f"{split} {n['queries']} queries, {n['documents']} documents" for split, n in summary.items())
    return as_run(f"NanoBEIR layout: {sets} (evaluate with: python -m eval nanobeir MODEL --data FOLDER_OR_ID)")


def _public_command(argv: list[str]) -> str:
    """The command line for the card, local paths reduced to their last component (cards are published)."""
    shown = [Path(a).name if os.sep in a and Path(a).exists() else a for a in argv]
    return as_run("python -m dataset_scripts.wikir " + " ".join(shlex.quote(a) for a in shown))


if __name__ == "__main__":
    sys.exit(main())
