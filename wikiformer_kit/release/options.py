"""The release's command line: its options declared once, checked before any stage runs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from wikiformer_kit.cli import KitArgumentParser
from wikiformer_kit.cli.options import add_options, option, options_from
from wikiformer_kit.dataset_scripts.tasks.registry import SYSTEMS
from wikiformer_kit.home import find_kit_file, kit_file

STAGES = ("datasets", "wikir", "train", "export", "eval", "card")
DEFAULT_STAGES = tuple(s for s in STAGES if s != "wikir")  # --wikir adds it
SAMPLE_INPUT = "data/samples/wikipedia/enwiki-sample.xml.bz2"
SAMPLE_WIKIR_ARGS = "--min-links 1 --validation-size 10 --test-size 5 --bm25-k 20"
"""WIKIR settings for the 106-article vendored sample: at the defaults only Angola has 5 linking documents; with one
link enough, the sample gives 15 queries, 10 of them dev queries for selection, 5 a test split, none for training."""
DEMO_CONFIGS = {
    "wikiformer": "configs/demo-cpu.yaml",
    "prop": "configs/prop-demo-cpu.yaml",
    "harp": "configs/harp-demo-cpu.yaml",
}
System = Literal["wikiformer", "prop", "harp"]
assert set(DEMO_CONFIGS) == set(SYSTEMS), "every pre-training system has a demo config"


@dataclass
class ReleaseOptions:
    """``python release.py``'s options."""

    input: list[str]
    system: System = option("wikiformer", help="the pre-training method")
    output_dir: str | None = option(help="default: output/release (output/release-<system>)")
    config: str | None = option(help="training config for train.py (default: the system's demo)")
    eval_collection: str = option(
        str(kit_file("data/samples/eval/dl20-mini")),
        help="a collection with candidates and qrels (see python -m eval --help)",
    )
    eval_candidates: str = option("bm25", help="the collection's run to re-rank")
    eval_max_queries: int | None = option(help="the first N judged queries (default: all)")
    eval_depth: int = option(
        20, help="candidates re-ranked per query (python -m eval --k)", flags=("--eval-depth", "--depth")
    )
    eval_max_length: int = option(256, help="pair length in tokens at evaluation")
    nanobeir: list[str] | None = option(
        help="also measure the model on NanoBEIR (the sets by short name; none given: sentence-transformers' 11) and "
        "put the figures in the card's model-index as re-ranker cards report them",
        nargs="*",
        metavar="SET",
    )
    nanobeir_data: str | None = option(
        help="the NanoBEIR dataset: a Hub id (default sentence-transformers/NanoBEIR-en) or a local folder"
    )
    max_steps: int | None = option(help="override the config's max_steps")
    seed: int = option(42, help="seed of the dataset build, training and tests")
    num_proc: int = option(1, help="processes of the dataset and WIKIR builds")
    build_args: str = option(
        "",
        help="more options for python -m dataset_scripts.build (every corpus and sampling option), e.g. "
        "\"--language ltg --see-also-title 'Verīs taipoš' --read-ahead off\"",
    )
    harp_variant: Literal["default", "paper", "original"] | None = option(
        help="--system harp: all of HARP's build choices at once (python -m dataset_scripts.build --harp-variant; "
        "the importance model stays the backbone the config trains)"
    )
    prop_variant: Literal["paper", "original"] | None = option(
        help="--system prop: all of PROP's build choices at once (python -m dataset_scripts.build --prop-variant)"
    )
    stopwords: str | None = option(
        help="--system prop or harp: a stopword file or vendored list names (python -m dataset_scripts.build "
        "--stopwords), e.g. a copy of HARP's own list for --harp-variant original"
    )
    namespace: str | None = option(help="Hub namespace named in the cards (default: --push-to-hub's)")
    push_to_hub: str | None = option(help="push NAMESPACE/<system> and the task datasets", metavar="NAMESPACE")
    private: bool = option(False, help="create the Hub repos private")
    stages: str = option(
        ",".join(DEFAULT_STAGES),
        help=f"comma-separated subset of {','.join(STAGES)} (default: all {len(STAGES)}: wikir runs whenever train "
        "does, to choose the checkpoint and the fusion, unless --select-on-eval-collection; --wikir adds it to any "
        "subset)",
    )
    wikir: bool = option(False, help="build a WIKIR collection and report on its test split")
    wikir_args: str | None = option(
        help=f"options for python -m dataset_scripts.wikir (default: its own, or {SAMPLE_WIKIR_ARGS!r} on the sample)"
    )
    select_on_wikir: bool = option(
        False, help="select checkpoints on the WIKIR validation split (implies --wikir; the default)"
    )
    select_on_eval_collection: bool = option(
        False,
        help="choose the checkpoint and the fusion on --eval-collection instead of WIKIR (its figures are then dev)",
    )
    redo: Literal[STAGES] | None = option(help="run this stage again, and those after it")
    verbose: bool = option(False, help="show every command's own output (default: OUT/logs/<stage>.log)")

    @property
    def on_sample(self) -> bool:
        """Whether the input is the vendored enwiki sample alone."""
        return [str(Path(p).resolve()) for p in self.input] == [str(kit_file(SAMPLE_INPUT))]

    @property
    def wikir_extra_args(self) -> str:
        """``--wikir-args``, else ``SAMPLE_WIKIR_ARGS`` on the vendored sample, else none."""
        if self.wikir_args is not None:
            return self.wikir_args
        return SAMPLE_WIKIR_ARGS if self.on_sample else ""

    def selected_stages(self) -> list[str]:
        """The stages to run: ``--stages``, with ``wikir`` whenever it is asked for or training chooses on it."""
        selected = self.stages_given()
        for_selection = not self.select_on_eval_collection and "train" in selected
        if (self.wikir_asked() or for_selection) and "wikir" not in selected:
            selected.append("wikir")
        unknown = sorted(set(selected) - set(STAGES))
        if unknown:
            raise SystemExit(f"unknown stage(s) {', '.join(unknown)}; choose from {', '.join(STAGES)}")
        return selected

    def stages_given(self) -> list[str]:
        """The stages ``--stages`` names."""
        return [s.strip() for s in self.stages.split(",") if s.strip()]

    def wikir_asked(self) -> bool:
        """Whether the command line asks for WIKIR itself (else it runs only for selection, and may fall back)."""
        return self.wikir or self.select_on_wikir or "wikir" in self.stages_given()

    def baseline_choices(self) -> dict[str, str]:
        """The build options that ``--harp-variant``, ``--prop-variant`` and ``--stopwords`` ask for, for the system
        being built; a baseline's variant, or stopwords, given for another system is an error: it would build
        nothing differently."""
        given = {
            "harp_variant": (self.harp_variant, "harp"),
            "prop_variant": (self.prop_variant, "prop"),
            "stopwords": (self.stopwords, self.system if self.system != "wikiformer" else "prop or harp"),
        }
        wrong = [
            f"--{name.replace('_', '-')} (--system {owner})"
            for name, (value, owner) in given.items()
            if value and owner != self.system
        ]
        if wrong:
            raise ValueError(f"{', '.join(wrong)}: not an option of --system {self.system}")
        return {name: value for name, (value, _) in given.items() if value}


def parse_args(argv: list[str] | None = None) -> ReleaseOptions:
    """The command line (see the package docstring), with the kit's own files found from any folder."""
    parser = KitArgumentParser(
        prog="python release.py",
        description="The main job: from a Wikipedia dump to a published Wikiformer model and its four task datasets.",
        input_help="dump files, folders or a built corpus (default: the vendored enwiki sample)",
        input_default=[str(kit_file(SAMPLE_INPUT))],
    )
    add_options(parser, ReleaseOptions, skip=("input",))
    options = options_from(ReleaseOptions, parser.parse_args(argv))
    options.output_dir = options.output_dir or (
        "output/release" + ("" if options.system == "wikiformer" else f"-{options.system}")
    )
    options.config = options.config or str(kit_file(DEMO_CONFIGS[options.system]))
    try:
        options.baseline_choices()
    except ValueError as error:
        parser.error(str(error))
    given = [("--config", options.config), *(("INPUT", p) for p in options.input)]
    missing = [f"{flag} {path}" for flag, path in given if find_kit_file(path) is None]
    if missing:  # before any stage runs: a stage would fail on it minutes later
        parser.error(f"{', '.join(missing)}: no such file or folder")
    # the stage commands run in the current directory; a path the kit ships is found in its folder
    options.config = str(find_kit_file(options.config))
    options.input = [str(find_kit_file(p)) for p in options.input]
    if find_kit_file(options.eval_collection) is not None:
        options.eval_collection = str(find_kit_file(options.eval_collection))
    return options
