"""``python -m eval``: first-stage retrieval, re-ranking, comparison with significance, and tables.

Subcommands::

    python -m eval first-stage --collection C --method bm25 --k 100 --output run.trec
    python -m eval rerank --model M --collection C [--candidates RUN | --first-stage bm25 --k 100] --output-dir OUT
    python -m eval rerank ... --fusion zscore|minmax|rrf|none --alpha A     (fused with the first stage's scores)
    python -m eval rerank ... --long-documents maxp|sump --passage-window 256 --passage-stride 128
    python -m eval tune-fusion --model M --collection DEV --output-dir OUT [--save]
    python -m eval compare RUN... --collection C --reference RUN [--output-dir OUT]
    python -m eval table OUT1/comparison.json OUT2/comparison.json [--measures nDCG@10 RR@10] [--latex]
    python -m eval paper BENCHMARK --model M --collection C --output-dir OUT   (the paper's Tables 2-4, its figures beside)
    python -m eval nanobeir MODEL [--sets msmarco nfcorpus ...] [--data HUB_ID_OR_FOLDER] [--output-dir OUT]

``--collection C`` is a folder (format detected) or ``FORMAT:PATH``; see `eval.collections.resolve`.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from wikiformer_kit.cli import InputError, KitArgumentParser, one_line_errors
from wikiformer_kit.cli.errors import RESTARTS, RESUMES, one_line
from wikiformer_kit.eval.collections import Collection, Run, read_trec_run, write_trec_run
from wikiformer_kit.eval.collections.relevance import is_graded
from wikiformer_kit.eval.collections.trec import ranked
from wikiformer_kit.eval.metrics import DEFAULT_MEASURES, check_run_documents, evaluate_run
from wikiformer_kit.eval.preflight import check_model, check_output_file, check_output_folder
from wikiformer_kit.eval.splits import load_collection_part

logger = logging.getLogger("eval")


def _add_collection(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--collection",
        required=True,
        help="FOLDER (files sniffed), an archive (.tar.gz, .zip), FORMAT:PATH (trec, rankllm, beir, hf, smart, "
        "trec-sgml, jsonl, lisa; PATH a folder or comma-separated files), a Hub dataset (hf:ID) or an ir_datasets "
        "id (irds:ID, e.g. irds:cranfield); "
        "#dev or #test after it keeps one part of the queries, #train or #heldout one part of the fine-tuning split "
        "(eval/splits.py)",
    )
    parser.add_argument(
        "--relevance-level",
        type=int,
        help="smallest relevant grade for binary measures (default: collection.json, else 2 for TREC DL-style "
        "grades 0-3, else 1)",
    )
    parser.add_argument("--max-queries", type=int, help="use only the first N judged queries (quick runs on CPU)")


def _add_scoring(parser: argparse.ArgumentParser) -> None:
    """The options of the subcommands that score pairs with a checkpoint."""
    parser.add_argument("--max-length", type=int, help="pair length in tokens (default: the checkpoint's, else 512)")
    parser.add_argument(
        "--batch-size",
        type=int,
        default=32,
        help="pairs per forward pass (CrossEncoder.predict's default); batches are filled across queries",
    )
    parser.add_argument("--device", help="torch device (default: cuda if available)")
    parser.add_argument(
        "--dtype",
        choices=("auto", "float32", "bfloat16", "float16"),  # eval.rerank.scorer.DTYPE_CHOICES, without torch
        default="auto",
        help="weight dtype (default auto: the checkpoint's stored dtype; float16 is refused on a CPU)",
    )


def _add_long_documents(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--long-documents",
        choices=("firstp", "maxp", "sump"),  # eval.rerank.long_documents.LONG_DOCUMENT_MODES, without torch
        default="firstp",
        help="documents longer than the model: firstp (the first tokens, the pair cut at --max-length), maxp (the "
        "best of overlapping passages) or sump (their sum); MaxP and SumP repeat the title before each passage",
    )
    parser.add_argument("--passage-window", type=int, default=256, help="MaxP/SumP: passage length in tokens")
    parser.add_argument("--passage-stride", type=int, default=128, help="MaxP/SumP: tokens between passage starts")


def _long_documents(args: argparse.Namespace):
    """The ``--long-documents`` setting (FirstP where the command has no such option)."""
    from wikiformer_kit.eval.rerank.long_documents import LongDocuments

    mode = getattr(args, "long_documents", "firstp")
    if mode == "firstp":
        return LongDocuments()
    return LongDocuments(mode, args.passage_window, args.passage_stride)


def _add_first_stage(parser: argparse.ArgumentParser, flag: str) -> None:
    parser.add_argument(
        flag,
        default=None,
        help="bm25, paper (BM25 with the paper's k1=3.8, b=0.87), dense, or given (the first run shipped with the "
        "collection)",
    )
    parser.add_argument("--k", type=int, default=100, help="candidates per query")
    parser.add_argument("--k1", type=float, help="BM25 k1 (default 1.5)")
    parser.add_argument("--b", type=float, help="BM25 b (default 0.75)")
    parser.add_argument("--paper-bm25", action="store_true", help="the paper's BM25 parameters k1=3.8, b=0.87")
    parser.add_argument("--no-stemming", action="store_true", help="BM25 without the Snowball English stemmer")
    parser.add_argument("--stopwords", default="en", help="'en', 'none', or a file with one stopword per line")
    parser.add_argument("--dense-model", help="sentence-transformers bi-encoder (default: embedded all-MiniLM-L6-v2)")


def _load(args: argparse.Namespace) -> Collection:
    """The collection of ``--collection``; graded qrels make the relevance level and its reason printed."""
    collection = load_collection_part(args.collection, args.relevance_level)
    if is_graded(collection.qrels):
        print(
            f"{collection.name}: binary measures count grades >= {collection.relevance_level} as relevant "
            f"({collection.relevance_source}; --relevance-level changes it)",
            file=sys.stderr,
        )
    return collection


def _query_ids(collection: Collection, max_queries: int | None) -> list[str]:
    collection.require_queries()  # never an empty run: a collection without queries is refused, saying why
    ids = collection.judged_query_ids() or list(collection.queries)
    return ids[:max_queries] if max_queries else ids


def _first_stage(args: argparse.Namespace, collection: Collection, method: str, query_ids: list[str]) -> Run:
    from wikiformer_kit.eval.first_stage import BM25Options, first_stage_run

    if method == "paper":
        method, args.paper_bm25 = "bm25", True
    options = BM25Options.paper() if args.paper_bm25 else BM25Options()
    overrides = {"k1": args.k1, "b": args.b}
    options = BM25Options(
        k1=overrides["k1"] if overrides["k1"] is not None else options.k1,
        b=overrides["b"] if overrides["b"] is not None else options.b,
        stemmer=None if args.no_stemming else options.stemmer,
        stopwords=None if args.stopwords == "none" else args.stopwords,
    )
    return first_stage_run(collection, method, args.k, query_ids, bm25_options=options, dense_model=args.dense_model)


def _print_means(label: str, means: dict[str, float]) -> None:
    print(f"{label}: " + ", ".join(f"{name} {value:.4f}" for name, value in means.items()))


def cmd_first_stage(args: argparse.Namespace) -> int:
    collection = _load(args)
    run = _first_stage(args, collection, args.method, _query_ids(collection, args.max_queries))
    write_trec_run(run, args.output, tag=args.method)
    print(f"wrote {args.output}: {len(run)} queries")
    if collection.qrels:
        _print_means(
            args.method,
            evaluate_run(
                run,
                collection.qrels,
                args.measures,
                collection.relevance_level,
                source=str(args.output),
                documents=set(collection.documents),
            ).means(),
        )
    return 0


def _candidates(args: argparse.Namespace, collection: Collection, query_ids: list[str]) -> tuple[str, Run]:
    """``--candidates`` (a run file or a run shipped with the collection), else ``--first-stage``; by default the
    collection's first run, or BM25 when it has none."""
    if args.candidates:
        if Path(args.candidates).is_file():
            name, run = Path(args.candidates).stem, _read_run(args.candidates)
        elif args.candidates in collection.runs:
            name, run = args.candidates, collection.runs[args.candidates]
        else:
            raise ValueError(
                f"--candidates {args.candidates!r} is neither a file nor a run of {collection.name} "
                f"{sorted(collection.runs)}: give a TREC run file or one of those names"
            )
        run = {
            qid: dict(ranked(ranking)[: args.k])
            for qid, ranking in _known_queries(run, collection, query_ids, args.candidates).items()
        }
        return name, _checked(collection, run, args.candidates)
    method = args.first_stage or ("given" if collection.runs else "bm25")
    name = next(iter(collection.runs)) if method == "given" else method
    logger.info("candidates: %s (top %d)", name, args.k)
    return name, _checked(collection, _first_stage(args, collection, method, query_ids), name)


def _known_queries(run: Run, collection: Collection, query_ids: list[str], source: str) -> Run:
    """The rankings of ``run`` for ``query_ids``. Its queries that the collection does not have are counted in a
    warning naming ``source``; a run with none of the collection's queries, or none of those ranked, is refused."""
    unknown = [qid for qid in run if qid not in collection.queries and qid not in collection.qrels]
    if len(unknown) == len(run):
        raise InputError(
            f"{source}: none of its {len(run):,} queries ({_some(unknown)}) is a query of {collection.name} "
            f"({_some(list(collection.queries))}); was the run made on another collection?"
        )
    if unknown:
        logger.warning(
            "%s: %d of its %d queries are not queries of %s and are left out (e.g. %s)",
            source,
            len(unknown),
            len(run),
            collection.name,
            _some(unknown),
        )
    wanted = set(query_ids)
    kept = {qid: ranking for qid, ranking in run.items() if qid in wanted}
    if not kept:
        raise InputError(
            f"{source}: none of its {len(run) - len(unknown):,} queries of {collection.name} is among the "
            f"{len(query_ids):,} queries ranked ({_some(query_ids)}: the judged ones, cut by --max-queries or a "
            "#part); give a run of those queries"
        )
    return kept


def _some(ids: list[str], shown: int = 2) -> str:
    return ", ".join(ids[:shown]) + (", ..." if len(ids) > shown else "")


def _checked(collection: Collection, candidates: Run, source: str) -> Run:
    """The candidates, their document ids checked against the collection before any scoring (a warning when some
    are unknown; refused when they can match no judgment: see `eval.metrics.check_run_documents`)."""
    if collection.qrels:
        for note in check_run_documents(candidates, collection.qrels, set(collection.documents), source):
            logger.warning("%s", note)
    return candidates


def _fusion_setting(args: argparse.Namespace, scorer) -> tuple[str, float] | None:
    """``--fusion``/``--alpha``, else the checkpoint's stored fusion, else none."""
    from wikiformer_kit.modeling_wikiformer import DEFAULT_ALPHA, check_fusion

    if args.fusion == "none":
        if args.alpha is not None:
            raise ValueError("--alpha needs a fusion (--fusion zscore|minmax|rrf)")
        return None
    stored = scorer.fusion
    method = args.fusion or (stored[0] if stored else None)
    if method is None:
        if args.alpha is not None:
            raise ValueError("--alpha needs a fusion (--fusion zscore|minmax|rrf); this checkpoint stores none")
        return None
    alpha = args.alpha if args.alpha is not None else stored[1] if stored and method == stored[0] else DEFAULT_ALPHA
    check_fusion(method, alpha)
    return method, alpha


def _scorer(args: argparse.Namespace):
    """The run tag of the model (``--tag``, else its folder name) and its scorer (the model was checked before
    anything loaded: `_check_before_loading`)."""
    from wikiformer_kit.eval.rerank import PairScorer

    tag = args.tag or Path(args.model.rstrip("/")).name or "rerank"
    try:
        scorer = PairScorer(
            args.model, max_length=args.max_length, batch_size=args.batch_size, device=args.device, dtype=args.dtype
        )
    except OSError as error:  # transformers' and the Hub client's: not found, no network, no weights
        raise InputError(f"--model {args.model}: cannot load it: {one_line(error)}") from error
    return tag, scorer


def _rerank(
    args: argparse.Namespace,
    collection: Collection,
    candidates: Run,
    query_ids,
    scorer,
    path: Path,
    tag,
    on_new_settings: str = "raise",
):
    """The model's run over the first stage's candidates, resumable from ``path`` unless ``--no-resume``."""
    from wikiformer_kit.eval.rerank import rerank

    return rerank(
        collection,
        candidates,
        scorer,
        path,
        depth=args.depth,
        query_ids=query_ids,
        tag=tag,
        resume=not args.no_resume,
        long_documents=_long_documents(args),
        on_new_settings=on_new_settings,
    )


def _check_rerank_options(args: argparse.Namespace) -> None:
    """Refuse a bad ``--alpha``, passage window or stride before anything loads."""
    if args.alpha is not None and not 0.0 <= args.alpha <= 1.0:
        raise ValueError(f"--alpha must be in [0, 1] (the re-ranker's weight), got {args.alpha}")
    _long_documents(args)


def cmd_rerank(args: argparse.Namespace) -> int:
    _check_rerank_options(args)
    return _rerank_and_evaluate(args, _load(args))


def _rerank_and_evaluate(args: argparse.Namespace, collection: Collection, on_new_settings: str = "raise") -> int:
    """``eval rerank`` on a loaded collection: the candidates, the model's run (and its fusion), their figures."""
    from wikiformer_kit.eval.hub_results import rerank_hub_results, write_eval_results
    from wikiformer_kit.eval.rerank import check_first_stage_scores, fuse_run, reranked_head, with_tail

    long_documents = _long_documents(args)
    query_ids = _query_ids(collection, args.max_queries)
    name, candidates = _candidates(args, collection, query_ids)
    out = Path(args.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    write_trec_run(candidates, out / f"{name}.run", tag=name)
    tag, scorer = _scorer(args)
    fusion = _fusion_setting(args, scorer)
    if fusion:
        check_first_stage_scores(candidates, name)  # before any scoring: a rank-only run fails fast
    run = _rerank(args, collection, candidates, query_ids, scorer, out / f"{tag}.run", tag, on_new_settings)
    systems = {name: candidates, tag: run}
    if fusion:
        fused_tag = f"{tag}+{name}"
        # fusion reorders the re-ranked depth only; the candidates below it stay under it, in first-stage order
        fused = fuse_run(reranked_head(run, candidates, args.depth), candidates, *fusion)
        systems[fused_tag] = with_tail(fused, candidates, args.depth)
        write_trec_run(systems[fused_tag], out / f"{fused_tag}.run", tag=fused_tag)
        print(f"fusion: {fusion[0]}, alpha {fusion[1]:g} (the re-ranker's weight) -> {out / f'{fused_tag}.run'}")
    if not collection.qrels:
        print(f"wrote {out / f'{tag}.run'} (no qrels: not evaluated)")
        return 0
    results = {}
    for label, system in systems.items():
        evaluation = evaluate_run(system, collection.qrels, args.measures, collection.relevance_level)
        results[label] = evaluation.to_dict()
        if label != name:
            results[label]["long_documents"] = long_documents.to_dict()
        if fusion and label == f"{tag}+{name}":
            results[label]["fusion"] = {"method": fusion[0], "alpha": fusion[1], "first_stage": name}
        _print_means(label, evaluation.means())
    (out / "metrics.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out / f'{tag}.run'}, {out / 'metrics.json'}")
    setting = (
        f"re-ranking the {name} top {args.depth} of {len(query_ids)} queries, pairs of up to {scorer.max_length} tokens"
    )
    hub = rerank_hub_results(args.collection, results, {tag: "", f"{tag}+{name}": "fused"}, setting)
    for path in write_eval_results(out, hub):
        print(f"wrote {path} (the Hub's evaluation results format)")
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


def cmd_paper(args: argparse.Namespace) -> int:
    """One benchmark of the paper's Tables 2-4: re-rank its candidates with the model, measure the paper's measures
    and write the paper's table with the user's rows under it (``OUT/paper-table.md``). The collection is checked
    against the benchmark's before anything is scored; a run resumed with other settings or another model's files
    is scored again, with a warning saying what changed."""
    from wikiformer_kit.eval.paper_tables import benchmark, check_collection, paper_figures, paper_table

    bench = benchmark(args.benchmark)
    setting = args.setting or next(iter(bench.rows))
    bench.figures(setting)  # a setting the paper does not report is refused before anything loads
    args.measures, args.k = bench.all_measures(), args.k or bench.depth
    args.fusion, args.alpha = "none", None
    if args.first_stage is None and args.k1 is None and args.b is None:
        args.paper_bm25 = True  # where the collection ships no candidates, BM25 as the paper set it
    _check_rerank_options(args)
    collection = _load(args)
    check_collection(bench, collection.qrels, args.collection)
    _rerank_and_evaluate(args, collection, on_new_settings="restart")
    out = Path(args.output_dir)
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


def cmd_tune_fusion(args: argparse.Namespace) -> int:
    from wikiformer_kit.eval.rerank import check_first_stage_scores, reranked_head, tune_fusion

    collection = _load(args)
    if not collection.qrels:
        raise ValueError(f"dev collection {args.collection}: no judgments (qrels); fusion is tuned on judged queries")
    query_ids = _query_ids(collection, args.max_queries)
    name, candidates = _candidates(args, collection, query_ids)
    check_first_stage_scores(candidates, name)
    out = Path(args.output_dir)
    tag, scorer = _scorer(args)
    run = _rerank(args, collection, candidates, query_ids, scorer, out / f"{tag}.run", tag)
    qrels = {qid: collection.qrels[qid] for qid in query_ids if qid in collection.qrels}
    choice = tune_fusion(
        reranked_head(run, candidates, args.depth),
        candidates,
        qrels,
        args.measure,
        args.methods,
        args.alphas,
        collection.relevance_level,
        name,
        args.folds,
    )
    raw = evaluate_run(run, qrels, [args.measure], collection.relevance_level).means()[args.measure]
    print(choice.table())
    print(
        f"{collection.name} ({len(qrels)} dev queries): {name} {choice.first_stage_value:.4f}, {tag} {raw:.4f}, "
        f"fused {choice.value:.4f} with {choice.method} alpha {choice.alpha:g}"
    )
    print(choice.summary())
    evidence = choice.evidence(collection.name)
    record = {
        "collection": collection.name,
        "queries": len(qrels),
        "first_stage": name,
        "measure": args.measure,
        "first_stage_value": choice.first_stage_value,
        "model_value": raw,
        "method": choice.method,
        "alpha": choice.alpha,
        "value": choice.value,
        "cross_validation": evidence,
        "grid": {m: {str(a): v for a, v in values.items()} for m, values in choice.grid.items()},
    }
    (out / "fusion.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    if args.save:
        from wikiformer_kit.eval.rerank.fusion import store_fusion

        path = store_fusion(args.model, choice.method, choice.alpha, collection.name, evidence)
        print(f"stored fusion_method={choice.method}, fusion_alpha={choice.alpha:g} and its evidence in {path}")
    return 0


def _check_nanobeir_data(args: argparse.Namespace) -> None:
    """Refuse NanoBEIR data that cannot be read before it is fetched: a Hub id neither cached nor reachable (one
    line, at once, instead of the loaders' retries), or a local folder without the bm25 subset."""
    from wikiformer_kit.cli.hub_access import in_hub_cache
    from wikiformer_kit.eval.nanobeir import DEFAULT_DATASET_ID, check_set_names, split_name
    from wikiformer_kit.eval.preflight import check_dataset_layout, check_hub_repo, looks_local

    data = str(args.data or DEFAULT_DATASET_ID)
    what = f"--data {data}" if args.data else f"the NanoBEIR data {data} (--data)"
    path = Path(data).expanduser()
    layout = "give a Hub dataset id or a local folder of NanoBEIR's layout (subsets corpus, queries, qrels, bm25)"
    if args.sets:
        check_set_names(args.sets, data)  # a set NanoBEIR does not have is refused before anything is fetched
    if path.exists() and not path.is_dir():
        raise InputError(f"{what}: a file, not a folder; {layout}")
    if not path.exists() and looks_local(data):
        raise InputError(f"{what}: no such folder; {layout}")
    if not path.exists():
        if in_hub_cache(data, "dataset"):
            return  # read from the cache by the loader; listing it here could wait on a network that is not there
        check_hub_repo(data, "dataset", what, "give --data FOLDER, a local copy of the same layout")
    splits = [split_name(name) for name in args.sets or ()]
    check_dataset_layout(data, ("corpus", "queries", "qrels", "bm25"), what, splits, "bm25")


def cmd_nanobeir(args: argparse.Namespace) -> int:
    _check_nanobeir_data(args)  # first: before the imports of torch and the scorer, which take seconds

    from wikiformer_kit.eval.hub_results import nanobeir_hub_results, write_eval_results
    from wikiformer_kit.eval.nanobeir import DEFAULT_DATASET_ID, NanoBEIREvaluator
    from wikiformer_kit.eval.nanobeir_report import NanoBEIRRecord

    args.tag = None
    long_documents = _long_documents(args)
    evaluator = NanoBEIREvaluator(
        args.sets,
        args.data or DEFAULT_DATASET_ID,
        rerank_k=args.rerank_k,
        at_k=args.at_k,
        always_rerank_positives=not args.bm25_only,
        activation=args.activation,
    )
    _, scorer = _scorer(args)
    if long_documents.mode != "firstp":
        from wikiformer_kit.eval.rerank.long_documents import PassageScorer

        scorer = PassageScorer(scorer, long_documents)
    record = NanoBEIRRecord(
        model=args.model,
        dataset_id=str(args.data or DEFAULT_DATASET_ID),
        sets=evaluator.dataset_names,
        rerank_k=args.rerank_k,
        at_k=args.at_k,
        always_rerank_positives=not args.bm25_only,
        results=evaluator(scorer),
        settings={"max_length": scorer.max_length, "long_documents": long_documents.to_dict()},
    )
    print(record.markdown_table())
    print(f"{record.primary_metric}: {record.results[record.primary_metric]:.4f}")
    if args.output_dir:
        print(f"wrote {record.save(args.output_dir)}")
        for path in write_eval_results(args.output_dir, nanobeir_hub_results(record)):
            print(f"wrote {path} (the Hub's evaluation results format)")
    return 0


def _named_runs(specs: list[str], paths: dict[str, str] | None = None) -> dict[str, Run]:
    """The runs of ``NAME=PATH`` or ``PATH`` specs by name; ``paths`` (if given) receives each name's file."""
    runs = {}
    for spec in specs:
        name, equals, path = spec.partition("=")
        if not equals:
            name, path = Path(spec).stem, spec
        if name in runs:
            raise ValueError(f"two runs are named {name!r}; name them as NAME=PATH")
        runs[name] = _read_run(path)
        if paths is not None:
            paths[name] = path
    return runs


def _read_run(path: str) -> Run:
    """A TREC run file given to ``compare``; an error naming it when it ranks nothing (an empty file)."""
    run = read_trec_run(path)
    if not run:
        raise InputError(
            f"{path}: the run ranks no document (an empty file?); give a TREC run: qid Q0 docid rank score"
        )
    return run


def cmd_compare(args: argparse.Namespace) -> int:
    from wikiformer_kit.eval.report import bar_chart, compare, latex_table, markdown_table

    collection = _load(args)
    paths: dict[str, str] = {}
    runs = _named_runs(args.runs, paths)
    reference = None
    if args.reference:
        reference = args.reference if args.reference in runs else Path(args.reference).stem
        if reference not in runs:
            runs = {reference: _read_run(args.reference), **runs}
            paths[reference] = args.reference
    documents = set(collection.documents)
    evaluations = {
        # a run whose document ids match nothing of the collection is refused, a partial match warned about
        name: evaluate_run(
            run,
            collection.qrels,
            args.measures,
            collection.relevance_level,
            complete=args.complete,
            source=paths[name],
            documents=documents,
        )
        for name, run in runs.items()
    }
    comparison = compare(
        collection.name, evaluations, args.measures, reference, args.test, args.alpha, args.permutations, args.seed
    )
    print(markdown_table(comparison))
    if args.output_dir:
        out = Path(args.output_dir)
        comparison.save_json(out / "comparison.json")
        (out / "table.md").write_text(markdown_table(comparison), encoding="utf-8")
        (out / "table.tex").write_text(latex_table(comparison), encoding="utf-8")
        bar_chart(comparison, out / "chart.png")
        per_query = {name: e.to_dict() for name, e in evaluations.items()}
        (out / "metrics.json").write_text(json.dumps(per_query, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {out}/comparison.json, table.md, table.tex, chart.png, metrics.json")
    return 0


def _read_comparison(comparison_class, path: Path):
    """A ``comparison.json``; an error naming the file when it is not one."""
    try:
        return comparison_class.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError, AttributeError) as error:
        raise InputError(
            f"{path}: not a comparison.json written by python -m eval compare ({type(error).__name__}: {error})"
        ) from error


def cmd_table(args: argparse.Namespace) -> int:
    from wikiformer_kit.eval.report import Comparison, combined_markdown_table, latex_table, markdown_table

    comparisons = [_read_comparison(Comparison, Path(p)) for p in args.comparisons]
    measures = args.measures or comparisons[0].measures
    for comparison in comparisons:
        unknown = [m for m in measures if m not in comparison.measures]
        if unknown:
            raise ValueError(f"{comparison.collection}: no values for {unknown} (has {comparison.measures})")
    if args.latex:
        for comparison in comparisons:
            comparison.measures = list(measures)
            print(latex_table(comparison))
    elif len(comparisons) == 1:
        comparisons[0].measures = list(measures)
        print(markdown_table(comparisons[0]))
    else:
        print(combined_markdown_table(comparisons, measures))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m eval``."""
    parser = KitArgumentParser(prog="python -m eval", description=__doc__.split("\n")[0])
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    commands = parser.add_subparsers(dest="command", required=True)

    first = commands.add_parser("first-stage", help="retrieve candidates and write a TREC run")
    _add_collection(first)
    _add_first_stage(first, "--method")
    first.add_argument("--output", required=True, help="TREC run file to write")
    first.add_argument(
        "--measures", nargs="+", default=list(DEFAULT_MEASURES), help="measures printed (ir_measures names)"
    )
    first.set_defaults(func=cmd_first_stage)

    rr = commands.add_parser("rerank", help="re-rank candidates with a checkpoint and evaluate")
    rr.add_argument("--model", required=True, help="checkpoint folder or Hub id (Wikiformer, CrossEncoder, BERT)")
    _add_collection(rr)
    rr.add_argument("--candidates", help="a TREC run file, or the name of a run shipped with the collection")
    _add_first_stage(rr, "--first-stage")
    rr.add_argument("--depth", type=int, help="re-rank only the top N candidates (default: all --k)")
    _add_scoring(rr)
    _add_long_documents(rr)
    rr.add_argument("--tag", help="run name (default: the model folder name)")
    rr.add_argument("--no-resume", action="store_true", help="start afresh instead of resuming OUT/<tag>.run")
    rr.add_argument("--output-dir", required=True, help="the runs and metrics.json are written here")
    rr.add_argument(
        "--measures", nargs="+", default=list(DEFAULT_MEASURES), help="measures computed (ir_measures names)"
    )
    rr.add_argument(
        "--fusion",
        choices=("none", "zscore", "minmax", "rrf"),
        help="also fuse with the first stage's scores (default: the checkpoint's stored fusion, else none)",
    )
    rr.add_argument(
        "--alpha",
        type=float,
        help="the re-ranker's weight in the fusion, in [0, 1]; default: the checkpoint's stored alpha when the fusion "
        "is its stored one (--fusion not given, or the same method), else 0.7",
    )
    rr.set_defaults(func=cmd_rerank)

    tune = commands.add_parser("tune-fusion", help="choose the fusion method and alpha on a dev collection")
    tune.add_argument("--model", required=True, help="checkpoint folder")
    _add_collection(tune)
    tune.add_argument("--candidates", help="a TREC run file (with scores), or the name of a run of the collection")
    _add_first_stage(tune, "--first-stage")
    tune.add_argument("--depth", type=int, help="re-rank only the top N candidates (default: all --k)")
    _add_scoring(tune)
    tune.add_argument("--tag", help="run name (default: the model folder name)")
    tune.add_argument("--measure", default="nDCG@10", help="the measure maximised (default nDCG@10)")
    tune.add_argument(
        "--methods",
        nargs="+",
        default=["zscore", "minmax", "rrf"],
        choices=("zscore", "minmax", "rrf"),
        help="fusion methods tried",
    )
    tune.add_argument(
        "--alphas",
        nargs="+",
        type=float,
        default=[round(0.1 * i, 1) for i in range(11)],
        help="the re-ranker's weights tried",
    )
    tune.add_argument(
        "--folds",
        type=int,
        default=5,
        help="cross-validation folds over the dev queries (default 5, at most one a query)",
    )
    tune.add_argument("--save", action="store_true", help="store the choice in the checkpoint's config.json")
    tune.add_argument("--no-resume", action="store_true", help="score afresh instead of reusing OUT/<tag>.run")
    tune.add_argument("--output-dir", required=True, help="the raw run and fusion.json are written here")
    tune.set_defaults(func=cmd_tune_fusion)

    cmp = commands.add_parser("compare", help="evaluate runs, test significance, write tables and a chart")
    cmp.add_argument("runs", nargs="+", help="TREC run files (named by file stem, or NAME=PATH)")
    _add_collection(cmp)
    cmp.add_argument("--reference", help="the run the others are tested against (a name or a file)")
    cmp.add_argument("--measures", nargs="+", default=list(DEFAULT_MEASURES), help="measures compared")
    cmp.add_argument(
        "--test", choices=("fisher", "ttest"), default="fisher", help="fisher: randomization test; ttest: paired t"
    )
    cmp.add_argument("--alpha", type=float, default=0.05, help="significance level")
    cmp.add_argument("--permutations", type=int, default=10_000, help="permutations of the randomization test")
    cmp.add_argument("--seed", type=int, default=42, help="seed of the randomization test")
    cmp.add_argument(
        "--complete", action="store_true", help="score judged queries missing from a run as 0 (trec_eval -c)"
    )
    cmp.add_argument("--output-dir", help="write comparison.json, table.md, table.tex, chart.png, metrics.json")
    cmp.set_defaults(func=cmd_compare)

    table = commands.add_parser("table", help="render tables from comparison.json files (one per collection)")
    table.add_argument("comparisons", nargs="+", help="comparison.json files written by python -m eval compare")
    table.add_argument("--measures", nargs="+", help="measures shown (default: those of the first file)")
    table.add_argument("--latex", action="store_true", help="LaTeX tables instead of markdown")
    table.set_defaults(func=cmd_table)
    paper = commands.add_parser(
        "paper", help="one benchmark of the paper's Tables 2-4, written in the paper's layout with its figures beside"
    )
    paper.add_argument(
        "benchmark",
        metavar="BENCHMARK",
        help="msmarco-doc-dev, trec-dl-2019-doc, trec-covid-round2, lecard or cail-lcr (eval/paper_tables.py)",
    )
    paper.add_argument("--model", required=True, help="checkpoint folder or Hub id")
    _add_collection(paper)
    paper.add_argument(
        "--setting",
        choices=("zero-shot", "fine-tuned"),
        help="the paper's rows shown beside (default: zero-shot, or fine-tuned where the paper has only those)",
    )
    paper.add_argument(
        "--candidates", help="a TREC run file, or a run shipped with the collection (default: the collection's first)"
    )
    _add_first_stage(paper, "--first-stage")
    paper.set_defaults(k=None)  # the benchmark's depth
    paper.add_argument("--depth", type=int, help="re-rank only the top N candidates (default: all --k)")
    _add_scoring(paper)
    _add_long_documents(paper)
    paper.add_argument("--tag", help="run name (default: the model folder name)")
    paper.add_argument("--no-resume", action="store_true", help="start afresh instead of resuming OUT/<tag>.run")
    paper.add_argument("--output-dir", required=True, help="the runs, metrics.json and paper-table.md are written here")
    paper.set_defaults(func=cmd_paper)

    nano = commands.add_parser(
        "nanobeir",
        help="NanoBEIR re-ranking figures as re-ranker model cards report them (sentence-transformers' keys)",
    )
    nano.add_argument("model", nargs="?", metavar="MODEL", help="checkpoint folder or Hub id")
    nano.add_argument("--model", dest="model_option", help="the same as MODEL")
    nano.add_argument(
        "--sets",
        nargs="+",
        help="NanoBEIR sets by short name (msmarco, nfcorpus, nq, ...; default: all but arguana and touche2020), or "
        "the splits of the --data dataset (default: all of them, e.g. NanoWIKIR_en)",
    )
    nano.add_argument(
        "--data",
        help="a NanoBEIR dataset: a Hub id (default sentence-transformers/NanoBEIR-en) or a local folder of the same "
        "layout (subsets corpus, queries, qrels, bm25; splits Nano{Set})",
    )
    nano.add_argument("--rerank-k", type=int, default=100, help="BM25 candidates re-ranked per query")
    nano.add_argument("--at-k", type=int, default=10, help="cut-off of MRR and nDCG")
    nano.add_argument(
        "--bm25-only",
        action="store_true",
        help="re-rank BM25's candidates only (default: with the positives it missed added, the cards' setting)",
    )
    nano.add_argument(
        "--activation",
        choices=("auto", "sigmoid", "identity"),
        default="auto",
        help="what the pair scores are ranked as (auto: as CrossEncoder.predict returns them, the cards' figures)",
    )
    _add_scoring(nano)
    _add_long_documents(nano)
    nano.add_argument("--output-dir", help="write OUT/nanobeir.json (the settings and the figures)")
    nano.set_defaults(func=cmd_nanobeir)
    return parser


def _check_before_loading(args: argparse.Namespace) -> None:
    """What every subcommand checks before it loads anything: its output folder or file, and its model (a folder
    with config.json, weights and tokenizer, or a Hub id that is cached or on a reachable Hub)."""
    if args.command == "nanobeir":
        args.model = args.model or args.model_option
        if not args.model:
            raise InputError("python -m eval nanobeir: give the checkpoint, MODEL or --model MODEL")
    if getattr(args, "output_dir", None):
        check_output_folder(args.output_dir)
    if getattr(args, "output", None):
        check_output_file(args.output)
    if getattr(args, "model", None):
        check_model(args.model, "--model")
    dense = "dense" in (getattr(args, "method", None), getattr(args, "first_stage", None))
    if dense and args.dense_model:
        check_model(args.dense_model, "--dense-model")


def interrupted(argv: list[str]) -> str:
    """The Ctrl-C line: re-ranking resumes from its run file (unless ``--no-resume``); the other subcommands start
    again."""
    command = next((a for a in argv if not a.startswith("-")), None)  # the options before it take no value
    resumes = command in ("rerank", "tune-fusion", "paper") and not {"--no-resume", "--no_resume"} & set(argv)
    return RESUMES if resumes else RESTARTS


@one_line_errors(interrupted=interrupted)
def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO, format="%(levelname)s %(name)s: %(message)s"
    )
    if not args.verbose:  # bm25s sets its own logger to DEBUG, which the root handler would print
        logging.getLogger("bm25s").setLevel(logging.WARNING)
    try:
        _check_before_loading(args)
        return args.func(args)
    except (ValueError, FileNotFoundError) as error:  # bad input (CollectionFormatError is a ValueError)
        if args.verbose:
            raise
        print(f"error: {one_line(error)}", file=sys.stderr)  # one line, however long the library's message
        return 2


if __name__ == "__main__":
    sys.exit(main())
