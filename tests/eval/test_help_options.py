"""``python -m eval --help`` and each subcommand's: the same option strings, positional arguments and choices as
written down here, however the options are declared."""

from __future__ import annotations

import argparse

import pytest

from wikiformer_kit.eval.cli import build_parser

COMMON = {"-h", "--help", "--debug"}
COLLECTION = {"--collection", "--relevance-level", "--max-queries"}
FIRST_STAGE = {"--k", "--k1", "--b", "--paper-bm25", "--no-stemming", "--stopwords", "--dense-model"}
SCORING = {"--max-length", "--batch-size", "--device", "--dtype"}
LONG_DOCUMENTS = {"--long-documents", "--passage-window", "--passage-stride"}
RERANKING = {"--model", "--candidates", "--first-stage", "--depth", "--tag", "--no-resume", "--output-dir"}

OPTIONS = {
    "": COMMON | {"-v", "--verbose"},
    "first-stage": COMMON | COLLECTION | FIRST_STAGE | {"--method", "--output", "--measures"},
    "rerank": COMMON | COLLECTION | FIRST_STAGE | SCORING | LONG_DOCUMENTS | RERANKING
    | {"--measures", "--fusion", "--alpha"},
    "tune-fusion": COMMON | COLLECTION | FIRST_STAGE | SCORING | RERANKING
    | {"--measure", "--methods", "--alphas", "--folds", "--save"},
    "compare": COMMON | COLLECTION
    | {"--reference", "--measures", "--test", "--alpha", "--permutations", "--seed", "--complete", "--output-dir"},
    "table": COMMON | {"--measures", "--latex"},
    "paper": COMMON | COLLECTION | FIRST_STAGE | SCORING | LONG_DOCUMENTS | RERANKING | {"--setting"},
    "nanobeir": COMMON | SCORING | LONG_DOCUMENTS
    | {"--model", "--sets", "--data", "--rerank-k", "--at-k", "--bm25-only", "--activation", "--output-dir"},
}  # fmt: skip
POSITIONALS = {"compare": ["runs"], "table": ["comparisons"], "paper": ["benchmark"], "nanobeir": ["model"]}
DTYPES = ("auto", "float32", "bfloat16", "float16")
CHOICES = {
    "rerank": {"--dtype": DTYPES, "--long-documents": ("firstp", "maxp", "sump"),
               "--fusion": ("none", "zscore", "minmax", "rrf")},
    "tune-fusion": {"--dtype": DTYPES, "--methods": ("zscore", "minmax", "rrf")},
    "compare": {"--test": ("fisher", "ttest")},
    "paper": {"--dtype": DTYPES, "--long-documents": ("firstp", "maxp", "sump"),
              "--setting": ("zero-shot", "fine-tuned")},
    "nanobeir": {"--dtype": DTYPES, "--long-documents": ("firstp", "maxp", "sump"),
                 "--activation": ("auto", "sigmoid", "identity")},
}  # fmt: skip


def parsers() -> dict[str, argparse.ArgumentParser]:
    """The top-level parser (under "") and each subcommand's, as ``--help`` shows them."""
    top = build_parser()
    [commands] = [action for action in top._actions if isinstance(action, argparse._SubParsersAction)]
    found = {"": top, **commands.choices}
    for parser in found.values():
        parser.format_help()  # --help adds --debug last
    return found


def test_every_subcommand_is_there():
    assert list(parsers()) == list(OPTIONS)


@pytest.mark.parametrize("command", list(OPTIONS))
def test_the_option_strings_and_positionals_are_unchanged(command):
    actions = [a for a in parsers()[command]._actions if not isinstance(a, argparse._SubParsersAction)]
    assert {flag for action in actions for flag in action.option_strings} == OPTIONS[command]
    assert [action.dest for action in actions if not action.option_strings] == POSITIONALS.get(command, [])


@pytest.mark.parametrize("command", list(CHOICES))
def test_the_choices_are_unchanged(command):
    actions = parsers()[command]._actions
    choices = {action.option_strings[0]: tuple(action.choices) for action in actions if action.choices}
    assert choices == CHOICES[command]
