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

import sys
from dataclasses import dataclass, field
from pathlib import Path

from wikiformer_kit.cli import KitArgumentParser, one_line_errors
from wikiformer_kit.cli.commands import as_run, public_command
from wikiformer_kit.cli.options import add_option_groups, option, options_from
from wikiformer_kit.dataset_scripts.corpus.arguments import CorpusArguments
from wikiformer_kit.dataset_scripts.corpus.folder import corpus_language, is_corpus_dir
from wikiformer_kit.dataset_scripts.corpus.formats.base import CorpusFormatError
from wikiformer_kit.dataset_scripts.executors import ExecutorOptions
from wikiformer_kit.dataset_scripts.hub.report import push_and_report
from wikiformer_kit.dataset_scripts.tasks.corpus_units import corpus_files
from wikiformer_kit.dataset_scripts.wikir.build import WikirParametersError, build_wikir, prepare_corpus
from wikiformer_kit.dataset_scripts.wikir.export import FORMATS
from wikiformer_kit.dataset_scripts.wikir.nano import export_nano, is_wikir_dir
from wikiformer_kit.dataset_scripts.wikir.options import WikirOptions


@dataclass(frozen=True)
class ArticleArguments:
    """Which corpus articles the collection is made of, and the original's layouts written too."""

    max_articles: int | None = option(help="read only the first N corpus articles [-m]")
    random_sample: bool = option(False, help="--max-articles draws N random articles (seeded), as -m does")
    export: list[str] = option(
        [],
        choices=FORMATS,
        help="also write the original's layouts under OUT/original: csv (its default), json [-j], xml [-x]",
    )


@dataclass(frozen=True)
class WikirArguments:
    """The fields of :class:`WikirOptions` (the original builder's flag given in each help)."""

    OPTION_GROUP = "WIKIR (original flag in brackets)"

    min_length: int = option(WikirOptions.min_length, help="min words per article [-l]")
    doc_length: int = option(WikirOptions.doc_length, help="words kept; link window [-d]")
    query_length: int = option(WikirOptions.query_length, help="words kept per query [-q]")
    min_links: int = option(WikirOptions.min_links, help="min linking documents per query [-e]")
    first_sentence_links: bool = option(False, help="only first-sentence links [-f]")
    title_queries: bool = option(False, help="title queries, not first sentences [-i]")
    skip_first_sentence: bool = option(False, help="drop the first sentence of documents [-s]")
    lowercase: bool = option(False, help="lower-case documents and queries [-c]")
    keep_non_alphanumeric: bool = option(False, help="keep punctuation")
    validation_size: int = option(WikirOptions.validation_size, help="[-v]")
    test_size: int = option(WikirOptions.test_size, help="[-t]")
    seed: int = option(WikirOptions.seed, help="query shuffle seed [-r]")
    bm25_k: int = option(WikirOptions.bm25_k, help="BM25 documents per query [-k]")
    k1: float = option(WikirOptions.k1, help="BM25 k1")
    b: float = option(WikirOptions.b, help="BM25 b")
    stemmer: str = option(WikirOptions.stemmer, help="Snowball language, auto (corpus language) or none")
    stopwords: str = option(WikirOptions.stopwords, help="bm25s stopword language, auto or none")
    train_negatives: int = option(WikirOptions.train_negatives, help="BM25 negatives per triple")
    keep_disambiguation: bool = option(False, help="keep disambiguation pages as documents")
    whole_documents: bool = option(
        False,
        help="documents are whole articles, not their first --doc-length words (links still count in those words)",
    )


@dataclass(frozen=True)
class NanoArguments:
    OPTION_GROUP = "NanoBEIR layout (python -m eval nanobeir --data, sentence-transformers' evaluators)"

    nano: int | None = option(
        metavar="SIZE",
        help="also write the test split as a NanoBEIR-layout dataset of SIZE queries in OUT/nano; given built WIKIR "
        "collections as inputs, write theirs (a set per language) in OUT instead of building",
    )
    nano_seed: int = option(42, help="seed of the queries drawn for --nano")


@dataclass(frozen=True)
class HubArguments:
    OPTION_GROUP = "Hub"

    push_to_hub: str | None = option(metavar="NAMESPACE", help="push to NAMESPACE/<repo-name>")
    repo_name: str | None = option(help="default: wikir-<language>")
    private: bool = option(False, help=None)


@dataclass(frozen=True, kw_only=True)
class WikirCommandOptions(
    ExecutorOptions, CorpusArguments, ArticleArguments, WikirArguments, NanoArguments, HubArguments
):
    """The command line of ``python -m dataset_scripts.wikir`` (see the module docstring)."""

    input: list[Path] = field(default_factory=list)
    output_dir: Path = option(required=True, help="where the collection is written")
    name: str | None = option(help="collection name in the card (default: WIKIR (<language>))")
    note: str | None = option(help="a note for the card (e.g. relaxed parameters)")
    articles_per_unit: int = option(1000, help="articles per extraction unit")


def parse_options(argv: list[str] | None = None) -> WikirCommandOptions:
    """The command line (see the module docstring)."""
    parser = KitArgumentParser(
        prog="python -m dataset_scripts.wikir",
        description=__doc__.split("\n\n")[0],
        input_help="dump/corpus files, or a corpus folder",
        input_type=Path,
    )
    add_option_groups(parser, WikirCommandOptions)
    options = options_from(WikirCommandOptions, parser.parse_args(argv))
    if (options.private or options.repo_name) and not options.push_to_hub:
        parser.error("--private and --repo-name only make sense with --push-to-hub")
    return options


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
    args = parse_options(argv)
    if args.nano is not None and args.nano < 1:
        print("error: --nano takes the number of queries per set (at least 1)", file=sys.stderr)
        return 2
    if args.nano and all(is_wikir_dir(path) for path in args.input):
        return export_only(args)
    try:
        options = options_from(WikirOptions, args)
        corpus, executor = args.corpus_options(), options_from(ExecutorOptions, args)
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
    info = {
        "source": source,
        "command": public_command("python -m dataset_scripts.wikir", argv if argv is not None else sys.argv[1:]),
        "note": args.note,
    }
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


def export_only(args: WikirCommandOptions) -> int:
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


if __name__ == "__main__":
    sys.exit(main())
