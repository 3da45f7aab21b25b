"""Each subcommand's options object written back as a command line (what the release runs) parses into the same
object."""

from __future__ import annotations

import pytest

from wikiformer_kit.cli.options import options_from, to_argv
from wikiformer_kit.eval.cli import SUBCOMMANDS, build_parser
from wikiformer_kit.eval.commands.compare import CompareOptions
from wikiformer_kit.eval.commands.first_stage import FirstStageOptions
from wikiformer_kit.eval.commands.nanobeir import NanoBEIROptions
from wikiformer_kit.eval.commands.paper import PaperOptions
from wikiformer_kit.eval.commands.rerank import RerankOptions
from wikiformer_kit.eval.commands.table import TableOptions
from wikiformer_kit.eval.commands.tune_fusion import TuneFusionOptions

COMMANDS = {
    "rerank": [
        RerankOptions(model="out/m", collection="wikir:dev#test", candidates="bm25", k=20, max_length=256,
                      no_resume=True, tag="m", output_dir="out/eval/m", max_queries=30),
        RerankOptions(model="m", collection="c", output_dir="o", fusion="rrf", alpha=0.5, measures=["RR@10"],
                      long_documents="maxp", passage_window=128, passage_stride=64, dtype="bfloat16", k1=1.2,
                      paper_bm25=True, first_stage="dense", dense_model="bi", depth=10),
    ],
    "tune-fusion": [
        TuneFusionOptions(model="out/m", collection="dev", candidates="bm25", k=20, max_length=256, max_queries=50,
                          save=True, no_resume=True, output_dir="out/eval/fusion"),
        TuneFusionOptions(model="m", collection="c", output_dir="o", methods=["rrf"], alphas=[0.3, 0.7], folds=3,
                          measure="RR@10"),
    ],
    "compare": [
        CompareOptions(runs=["bm25=o/bm25.run", "m=o/m.run"], collection="c", reference="bm25", output_dir="o/cmp",
                       seed=7),
        CompareOptions(runs=["a.run"], collection="c", test="ttest", alpha=0.01, permutations=99, complete=True),
    ],
    "nanobeir": [
        NanoBEIROptions(model="out/m", sets=["msmarco", "nq"], data="folder", output_dir="o", max_length=256),
        NanoBEIROptions(model="m", rerank_k=20, at_k=5, bm25_only=True, activation="sigmoid", batch_size=8),
    ],
    "first-stage": [FirstStageOptions(collection="c", method="paper", output="r.trec", no_stemming=True)],
    "paper": [PaperOptions(benchmark="lecard", model="m", collection="c", output_dir="o", setting="fine-tuned")],
    "table": [TableOptions(comparisons=["a.json", "b.json"], measures=["nDCG@10"], latex=True)],
}  # fmt: skip


@pytest.mark.parametrize(
    ("command", "options"), [(command, options) for command, cases in COMMANDS.items() for options in cases]
)
def test_options_written_as_a_command_line_parse_back(command, options):
    parsed = build_parser().parse_args([command, *to_argv(options)])
    assert options_from(SUBCOMMANDS[command][0], parsed) == options


def test_every_subcommand_is_written_back():
    assert set(COMMANDS) == set(SUBCOMMANDS)


def test_only_what_differs_from_the_defaults_is_written():
    options = RerankOptions(model="m", collection="c", candidates="bm25", k=20, no_resume=True, output_dir="o")
    argv = "--collection c --k 20 --model m --candidates bm25 --no-resume --output-dir o"
    assert to_argv(options) == argv.split()
    assert to_argv(NanoBEIROptions(model="m", output_dir="o")) == ["m", "--output-dir", "o"]
