"""Each dataset command's options as one dataclass: what ``to_argv`` writes parses back into the same options, so
that another stage can run a command from typed options."""

from __future__ import annotations

from pathlib import Path

import pytest

from wikiformer_kit.cli.options import to_argv
from wikiformer_kit.dataset_scripts import build
from wikiformer_kit.dataset_scripts.corpus import __main__ as corpus
from wikiformer_kit.dataset_scripts.corpus.arguments import CorpusCommandOptions
from wikiformer_kit.dataset_scripts.finetune import __main__ as finetune
from wikiformer_kit.dataset_scripts.wikir import __main__ as wikir

COMMANDS = {
    "build": (
        build.parse_options,
        build.BuildCommandOptions(
            input=[Path("no-such-dump.xml.bz2")],
            output_dir=Path("out"),
            tasks="harp,prop",
            seed=7,
            num_proc=3,
            harp_importance_model="google-bert/bert-base-uncased",
            harp_variant="original",
            prop_variant="original",
            stopwords="harp-stopwords.txt",
            prop_stem=False,
            prop_subsample=1e-4,
            harp_exclude_anchor_words=True,
            harp_importance_device="cpu",
            positives="all",
            keep_sections=True,
            language="fr",
            see_also_title=["Voir aussi", "Articles connexes"],
            kind="slurm",
            slurm_partition="cpu",
            push_to_hub="namespace",
            private=True,
            plan_processes=[1, 4],
            plan_cluster=["4x64", "2x8"],
            plan_json=Path("plan.json"),
        ),
    ),
    "corpus": (
        corpus.parse_options,
        CorpusCommandOptions(
            input=["no-such-dump.xml"],
            output_dir="corpus",
            format="wikitext",
            limit=5,
            see_also_title=["Siehe auch"],
            max_article_bytes=10_000,
            read_ahead="off",
            streams_per_shard=3,
            num_proc=2,
            verbose=True,
        ),
    ),
    "wikir": (
        wikir.parse_options,
        wikir.WikirCommandOptions(
            input=[Path("no-such-corpus")],
            output_dir=Path("wikir"),
            num_proc=2,
            min_links=1,
            validation_size=3,
            test_size=4,
            bm25_k=10,
            k1=1.2,
            title_queries=True,
            max_articles=50,
            export=["csv", "json"],
            nano=5,
            push_to_hub="namespace",
            repo_name="wikir-xx",
            private=True,
        ),
    ),
    "finetune": (
        finetune.parse_options,
        finetune.FinetuneCommandOptions(
            collection="irds:cranfield#train",
            output_dir=Path("groups"),
            relevance_level=2,
            depth=50,
            min_rank=2,
            max_rank=40,
            sampling="top",
            no_stemming=True,
            stopwords="none",
            filter_model="cross-encoder",
            absolute_margin=0.5,
            push_to_hub="namespace",
            license="mit",
        ),
    ),
}


MINIMAL = [
    (build.parse_options, build.BuildCommandOptions(input=[Path("dump.xml")], output_dir=Path("out"))),
    (corpus.parse_options, CorpusCommandOptions(input=["dump.xml"], output_dir="corpus")),
    (wikir.parse_options, wikir.WikirCommandOptions(input=[Path("dump.xml")], output_dir=Path("wikir"))),
    (finetune.parse_options, finetune.FinetuneCommandOptions(collection="c", output_dir=Path("groups"))),
]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_the_written_command_line_parses_back_into_the_same_options(command):
    parse, options = COMMANDS[command]
    assert parse(to_argv(options)) == options


@pytest.mark.parametrize(("parse", "options"), MINIMAL)
def test_defaults_are_left_out_of_the_command_line(parse, options):
    argv = to_argv(options)
    assert len(argv) == 4  # the input (or collection) and the output folder
    assert parse(argv) == options


def test_a_value_outside_an_options_choices_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as stopped:
        build.parse_options(["dump.xml", "--output-dir", "out", "--executor", "k8s"])
    assert stopped.value.code == 2
    assert "invalid choice: 'k8s'" in capsys.readouterr().err


def test_the_library_options_come_from_the_command_line_in_one_call():
    options = COMMANDS["build"][1]
    assert options.corpus_options().reader.see_also_titles == ("Voir aussi", "Articles connexes")
    assert options.task_options().keep_end_matter is True
    prop, harp = options.prop_options(), options.harp_options()
    assert (prop.variant_name, prop.stem, prop.subsample, prop.stopwords) == (
        "original",
        False,
        1e-4,
        "harp-stopwords.txt",
    )
    assert (harp.variant_name, harp.importance_device, harp.exclude_anchor_words) == ("original", "cpu", True)
    mining = COMMANDS["finetune"][1].mining_options()
    assert (mining.stemmer, mining.stopwords, mining.sampling) == (None, None, "top")
