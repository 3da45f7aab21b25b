"""The option strings of the dataset commands, group by group, as ``--help`` lists them: declared as dataclass
fields, they stay those users know."""

from __future__ import annotations

import importlib

import pytest

from wikiformer_kit.cli import KitArgumentParser

EXECUTOR = ["--num-proc", "--executor", "--slurm-partition", "--slurm-time", "--verbose"]
CORPUS = (
    "corpus (reading raw inputs)",
    ["--format", "--limit", "--language", "--see-also-title", "--max-article-bytes", "--streams-per-shard",
     "--read-ahead"],
)  # fmt: skip
COMMANDS = {
    "wikiformer_kit.dataset_scripts.build": [
        ("positional arguments", ["input"]),
        ("options", ["-h --help", "--input", "--output-dir", "--tasks", "--push-to-hub", "--private",
                     "--articles-per-unit", *EXECUTOR]),
        ("sampling (the task samplers' options)", ["--seed", "--min-words", "--max-words", "--max-negatives",
                                                   "--positives", "--srr-variant", "--ltm-max-words",
                                                   "--ltm-negatives", "--keep-sections"]),
        CORPUS,
        ("PROP (--tasks prop)", ["--prop-variant", "--prop-pairs", "--prop-pairs-kept", "--prop-corpus-sample",
                                 "--prop-short-document-words", "--prop-ties", "--prop-min-count", "--prop-subsample",
                                 "--prop-background", "--prop-epochs",
                                 "--prop-skip-disambiguation --no-prop-skip-disambiguation",
                                 "--prop-drop-long-sets --no-prop-drop-long-sets", "--prop-stem --no-prop-stem",
                                 "--stopwords"]),
        ("HARP (--tasks harp, or rqp,qdm,rdp,acm)", ["--harp-variant", "--harp-query-length", "--harp-heads",
                                                     "--harp-anchor-importance", "--harp-anchor-pairs",
                                                     "--harp-rdp-ties", "--harp-rqp-negative-length",
                                                     "--harp-word-draws", "--harp-draw-unit",
                                                     "--harp-exclude-anchor-words --no-harp-exclude-anchor-words",
                                                     "--harp-qdm-occurrences", "--harp-anchor-row",
                                                     "--harp-importance-model", "--harp-device", "--harp-batch-size",
                                                     "--harp-passage-max-tokens", "--harp-qdm-max-pairs",
                                                     "--harp-attention-cache"]),
        ("plan (predict the build's wall time from a sample of the input; builds nothing)",
         ["--plan", "--plan-sample", "--plan-articles", "--plan-processes", "--plan-cluster", "--plan-json"]),
    ],
    "wikiformer_kit.dataset_scripts.corpus.__main__": [
        ("positional arguments", ["input"]),
        ("options", ["-h --help", "--input", "--output-dir", *EXECUTOR]),
        CORPUS,
    ],
    "wikiformer_kit.dataset_scripts.wikir.__main__": [
        ("positional arguments", ["input"]),
        ("options", ["-h --help", "--input", "--output-dir", "--name", "--note", "--articles-per-unit", *EXECUTOR,
                     "--max-articles", "--random-sample", "--export"]),
        CORPUS,
        ("WIKIR (original flag in brackets)", ["--min-length", "--doc-length", "--query-length", "--min-links",
                                               "--first-sentence-links", "--title-queries", "--skip-first-sentence",
                                               "--lowercase", "--keep-non-alphanumeric", "--validation-size",
                                               "--test-size", "--seed", "--bm25-k", "--k1", "--b", "--stemmer",
                                               "--stopwords", "--train-negatives", "--keep-disambiguation",
                                               "--whole-documents"]),
        ("NanoBEIR layout (python -m eval nanobeir --data, sentence-transformers' evaluators)",
         ["--nano", "--nano-seed"]),
        ("Hub", ["--push-to-hub", "--repo-name", "--private"]),
    ],
    "wikiformer_kit.dataset_scripts.finetune.__main__": [
        ("options", ["-h --help", "--collection", "--output-dir --output_dir", "--relevance-level --relevance_level",
                     "--overwrite"]),
        ("negatives", ["--first-stage --first_stage", "--depth", "--min-rank --min_rank", "--max-rank --max_rank",
                       "--num-negatives --num_negatives", "--sampling", "--seed", "--k1", "--b",
                       "--no-stemming --no_stemming", "--stopwords", "--shard-queries --shard_queries"]),
        ("false-negative filter", ["--filter-model --filter_model", "--absolute-margin --absolute_margin",
                                   "--relative-margin --relative_margin", "--filter-max-length --filter_max_length"]),
        ("Hub", ["--push-to-hub --push_to_hub", "--repo-name --repo_name", "--private", "--license"]),
    ],
}  # fmt: skip


class ParserBuilt(BaseException):
    """Raised with the parser a command was about to parse with (a BaseException: no command turns it into an
    error line)."""


@pytest.mark.parametrize("module", sorted(COMMANDS))
def test_each_command_keeps_its_options_and_their_groups(module, monkeypatch):
    def stop(parser, *args, **kwargs):
        raise ParserBuilt(parser)

    monkeypatch.setattr(KitArgumentParser, "parse_known_args", stop)
    with pytest.raises(ParserBuilt) as built:
        importlib.import_module(module).main(["INPUT"])
    parser = built.value.args[0]
    groups = [
        (group.title, [" ".join(action.option_strings) or action.dest for action in group._group_actions])
        for group in parser._action_groups
        if group._group_actions
    ]
    assert groups == COMMANDS[module]
