"""Train a Wikiformer re-ranker: group-wise pre-training on the Wikipedia tasks, or fine-tuning, on one GPU or many.

Run ``python train.py configs/demo-cpu.yaml`` (a YAML or JSON file of arguments; flags after it override it), or
pass every argument as a flag. Multi-GPU / multi-node: ``torchrun --nproc_per_node N train.py <config>``.

This file is the command line (:func:`main`, :func:`load_model`); the arguments, data, collator, losses,
evaluation and trainer live in the :mod:`training` package (see its docstring for the data flow and the loss).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from wikiformer_kit.cli import InputError, one_line_errors
from wikiformer_kit.cli.errors import RESUMES
from wikiformer_kit.training.kit_arguments import (
    CONFIG_SUFFIXES,
    CONFIGS_DIR,
    EMBEDDED_MINILM,
    PROG,
    read_config,
    resolve_model_path,
)

if TYPE_CHECKING:
    from wikiformer_kit.training import (
        DataArguments,
        ModelArguments,
        Task,
        WikiformerTrainer,
        WikiformerTrainingArguments,
    )

DATA_FILE_SUFFIXES = (".parquet", ".jsonl", ".json", ".csv")


def load_model(model_args: ModelArguments, with_mlm: bool):
    """Load a Wikiformer model to train (with the MLM head when ``with_mlm``); a new ranking head per ``head_init``.

    The weights are float32 whatever dtype the checkpoint is stored in (float16 is common on the Hub, and
    transformers 5 loads a checkpoint in its stored dtype): AdamW on float16 weights turns the first updates into
    NaN. bf16/fp16 training goes through the Trainer's autocast (``--bf16``/``--fp16``) on these float32 weights.
    """
    import torch

    from wikiformer_kit.modeling_wikiformer import WikiformerForPreTraining, WikiformerForRanking

    path = resolve_model_path(model_args.model_name_or_path)
    model_class = WikiformerForPreTraining if with_mlm else WikiformerForRanking
    kwargs = {"attn_implementation": model_args.attn_implementation} if model_args.attn_implementation else {}
    model, info = model_class.from_pretrained(path, output_loading_info=True, dtype=torch.float32, **kwargs)
    if model_args.head_init not in ("zero", "random", "nsp"):
        raise ValueError(f"--head_init must be zero, random or nsp, got {model_args.head_init!r}")
    output = model.ranking_output()  # the head's last Linear(hidden, 1), named as the encoder's classifier names it
    output_name = next(name for name, module in model.named_modules() if module is output)
    new_head = any(key.startswith(f"{output_name}.") for key in info["missing_keys"])
    if model_args.head_init == "zero" and new_head:
        torch.nn.init.zeros_(output.weight)
        torch.nn.init.zeros_(output.bias)
    if model_args.head_init == "nsp" and new_head:  # HARP's start: BERT's NSP logit of class 1 (BERT only)
        model.start_head_from_nsp(path)
    return model


def card_context(
    model_args: ModelArguments, data_args: DataArguments, training_args: WikiformerTrainingArguments, tasks: list[Task]
) -> dict:
    """What the model card says about the run: start checkpoint, task datasets, and the settings that matter."""
    base = model_args.model_name_or_path
    recipe = {
        "tasks (weight, query/document tokens)": ", ".join(
            f"{t.name} ({t.weight:g}, {t.query_max_length}/{t.doc_max_length})" for t in tasks
        ),
        "loss": training_args.loss + (f" + {training_args.mlm_weight:g} x MLM" if training_args.mlm_weight else ""),
        "group size": data_args.group_size,
        "groups per device and step": training_args.per_device_train_batch_size,
        "learning rate": training_args.learning_rate,
        "warm-up": training_args.warmup_steps,
        "max steps": training_args.max_steps,
        "seed": training_args.seed,
    }
    if training_args.lr_drop_step:
        recipe["learning rate x factor from step"] = (
            f"{training_args.lr_drop_factor:g} from {training_args.lr_drop_step}"
        )
    return {
        "base_model": "sentence-transformers/all-MiniLM-L6-v2" if base in (None, "", EMBEDDED_MINILM) else base,
        "training_datasets": [
            (source, f"{task.name}: {len(task)} groups")
            for source, task in zip(data_args.train_datasets, tasks, strict=True)
        ],
        "recipe": recipe,
    }


def main(argv: list[str] | None = None, callbacks: list | None = None) -> WikiformerTrainer:
    """Parse the arguments, train, save the final model (and push it when ``--push_to_hub``).

    Args:
        argv: the command line without the program name (default: ``sys.argv[1:]``).
        callbacks: extra :class:`~transformers.TrainerCallback` objects (e.g. a benchmark's step timer).
    """
    from wikiformer_kit.training.arguments import parse_arguments

    argv = list(sys.argv[1:] if argv is None else argv)
    model_args, data_args, training_args = parse_arguments(argv)
    check_train_datasets(data_args.train_datasets, config_file(argv))
    check_collection_paths(data_args, config_file(argv))
    check_model_folders(model_args)

    import logging

    import transformers
    from transformers import AutoTokenizer, set_seed

    from wikiformer_kit.modeling_wikiformer import max_pair_length
    from wikiformer_kit.training import (
        DelayedCheckpointCallback,
        GroupCollator,
        GroupDataset,
        WikiformerTrainer,
        load_rerank_eval,
        load_tasks,
        load_test_sets,
    )

    logging.basicConfig(
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        level=logging.INFO if training_args.should_log else logging.WARNING,
    )
    transformers.utils.logging.set_verbosity(training_args.get_process_log_level())
    set_seed(training_args.seed)
    tokenizer = AutoTokenizer.from_pretrained(
        resolve_model_path(model_args.tokenizer_name or model_args.model_name_or_path)
    )
    model = load_model(model_args, with_mlm=training_args.mlm_weight > 0)
    with training_args.main_process_first(desc="checking the task datasets"):
        # rank 0 writes the datasets cache (Arrow tables and filters); the other ranks then map the same files
        tasks = load_tasks(data_args)
    collator = GroupCollator(
        tokenizer,
        tasks,
        data_args.group_size,
        max_length=max_pair_length(model.config),
        pad_to_multiple_of=data_args.pad_to_multiple_of,
        mlm_probability=training_args.mlm_probability if training_args.mlm_weight > 0 else 0.0,
        whole_word_mask=training_args.mlm_whole_word,
        max_predictions=training_args.mlm_max_predictions,
        max_tokens=data_args.max_tokens_per_batch,
    )
    eval_set = load_rerank_eval(data_args)
    test_sets = load_test_sets(data_args)  # loaded now, so that a bad test collection fails before training
    trainer = WikiformerTrainer(
        model=model,
        args=training_args,
        train_dataset=GroupDataset(tasks, data_args.group_size, training_args.seed, data_args.task_mixture),
        eval_dataset=eval_set,
        data_collator=collator,
        processing_class=tokenizer,
        task_names=[task.name for task in tasks],
        eval_max_length=data_args.eval_max_length,
        card_context=card_context(model_args, data_args, training_args, tasks),
    )
    for callback in callbacks or []:
        trainer.add_callback(callback)
    if training_args.save_start_step:
        trainer.add_callback(DelayedCheckpointCallback(training_args.save_start_step))
    resume = training_args.resume_from_checkpoint
    if isinstance(resume, str) and resume.lower() in ("true", "last"):
        resume = True  # the newest checkpoint-* in output_dir
    result = trainer.train(resume_from_checkpoint=resume)
    trainer.save_model()
    test_metrics = {}
    for test_set in test_sets:  # the kept model, once, on collections that never chose a checkpoint
        prefix = f"test_{test_set.name}"
        test_metrics.update(trainer.evaluate(test_set, metric_key_prefix=prefix))
        # how these figures were measured, beside them: another length or depth gives other figures
        test_metrics.update(test_settings(prefix, test_set, data_args.eval_max_length, data_args.eval_depth))
    trainer.log_metrics("train", result.metrics)
    trainer.save_metrics("train", result.metrics)
    if test_metrics:  # on the console and in test_results.json: once training ends, logged values are not printed
        trainer.log_metrics("test", test_metrics)
        trainer.save_metrics("test", test_metrics)
    trainer.save_state()
    if training_args.push_to_hub:
        trainer.push_to_hub(commit_message="Wikiformer training run")
    return trainer


def test_settings(prefix: str, test_set, max_length: int, depth: int | None) -> dict[str, int | str]:
    """The settings a test set's figures were measured at (pair length, candidates re-ranked, first stage), as
    metrics beside them, so that a figure in ``test_results.json`` is never read as one measured otherwise."""
    settings: dict[str, int | str] = {f"{prefix}_pair_tokens": max_length}
    if hasattr(test_set, "candidates"):
        settings[f"{prefix}_candidates"] = f"{test_set.first_stage} top {depth}" if depth else test_set.first_stage
    return settings


def check_config_argument(argv: list[str]) -> None:
    """Refuse a first argument that is neither an option nor a config file (a folder, another kind of file), which
    the parser would call an unknown argument.

    Raises:
        cli.InputError: naming the argument and what comes first instead.
    """
    if not argv or argv[0].startswith("-") or config_file(argv) is not None:
        return
    given = Path(argv[0])
    usage = f"{PROG} CONFIG.yaml [--flag value ...] (the kit's configs are in {CONFIGS_DIR})"
    if given.is_dir():
        raise InputError(
            f"{given}: a folder, not a config file; give a YAML or JSON file of arguments first: {usage}, and "
            "task dataset folders with --train_datasets"
        )
    if given.exists():
        raise InputError(f"{given}: not a config file (.yaml, .yml or .json); give one first: {usage}")
    raise InputError(f"{given}: no such config file; give a YAML or JSON file of arguments first: {usage}")


def check_model_folders(model_args: ModelArguments) -> None:
    """Refuse, before torch loads, a local model_name_or_path (or tokenizer_name) folder without config.json, the
    weights or the tokenizer files, naming what is missing (see :func:`cli.model_folder.check_model_folder`)."""
    from wikiformer_kit.cli.hub_access import check_cached_model
    from wikiformer_kit.cli.model_folder import check_model_folder

    separate_tokenizer = bool(model_args.tokenizer_name)
    check_model_folder(
        model_args.model_name_or_path,
        "model_name_or_path",
        tokenizer=not separate_tokenizer,
        tokenizer_hint="or set tokenizer_name to a folder or Hub id that has them",
    )
    if separate_tokenizer:
        check_model_folder(model_args.tokenizer_name, "tokenizer_name", model=False)
    check_cached_model(model_args.model_name_or_path or "", "model_name_or_path")


def check_collection_paths(data_args, config: Path | None = None) -> None:
    """Refuse, before any model is loaded, an ``eval_dir`` or ``test_dirs`` entry naming a local path that is not
    there (a prefixed spec, ``hf:ID`` or ``irds:ID``, is left to the collection readers).

    Raises:
        cli.InputError: naming the option, the path, the folder it was looked for in and the config it came from.
    """
    from wikiformer_kit.eval.collections.resolve import FORMATS

    named = [("eval_dir", data_args.eval_dir)] + [("test_dirs", value) for value in data_args.test_dirs or []]
    for option, value in named:
        if not value or value.split(":", 1)[0] in FORMATS:
            continue
        location = value.split("#", 1)[0]
        if "," in location or Path(location).exists():
            continue
        origin = f" (from {config}; a relative path there is read from the current folder)" if config else ""
        raise InputError(
            f"{option} {value}: no such collection folder or file in {Path.cwd()}{origin}; give its path, or run "
            "from the folder it is relative to"
        )


def config_file(argv: list[str]) -> Path | None:
    """The config file of a command line (its first argument, when a .yaml, .yml or .json file)."""
    return Path(argv[0]) if argv and Path(argv[0]).suffix.lower() in CONFIG_SUFFIXES else None


def check_train_datasets(datasets: list[str], config: Path | None = None) -> None:
    """Refuse, before any model is loaded, a run without task datasets or naming a local one that is not there,
    saying which command builds it (the config's own comment when it shows one).

    Raises:
        cli.InputError: no dataset, or a missing local folder or file.
    """
    if not datasets:
        raise InputError(
            "no --train_datasets given: name the task datasets (folders written by python -m dataset_scripts.build, "
            f"data files or Hub ids), or start from a config: {PROG} configs/demo-cpu.yaml"
        )
    for name in datasets:
        path = Path(name).expanduser()
        if not path.exists() and _is_local_path(name):
            raise InputError(f"{name}: no such task dataset; build it first: {build_command(path, config)}")


def _is_local_path(name: str) -> bool:
    """Whether a dataset name is a local path rather than a Hub id (``namespace/name``)."""
    path = Path(name).expanduser()
    return (
        path.is_absolute()
        or name.startswith((".", "~"))
        or name.strip("/").count("/") > 1
        or path.suffix.lower() in DATA_FILE_SUFFIXES
        or (path.parent != Path(".") and path.parent.is_dir())
    )


def build_command(dataset: Path, config: Path | None) -> str:
    """The command that builds a task dataset folder: the one a config's comments give for its folder, else the
    build's command line with that output folder."""
    if config is not None and config.is_file():
        for line in config.read_text(encoding="utf-8", errors="replace").splitlines():
            command = line.lstrip("# \t").strip()
            if command.startswith("python -m dataset_scripts.build") and str(dataset.parent) in command:
                return command
    task = dataset.name.removeprefix("wikiformer-")
    return f"python -m dataset_scripts.build --input DUMP --output-dir {dataset.parent} --tasks {task}"


def print_help(full: bool) -> None:
    """``--help``: the config file and the kit's own options (no torch import, about a second);
    ``--help-all``: also every option of transformers' ``TrainingArguments``."""
    from wikiformer_kit.training.kit_arguments import (
        DataArguments,
        KitTrainingArguments,
        ModelArguments,
        TrainArgumentParser,
    )

    if full:
        from wikiformer_kit.training.arguments import argument_parser

        parser = argument_parser()
    else:
        parser = TrainArgumentParser(
            (ModelArguments, DataArguments, KitTrainingArguments),
            description=__doc__.split("\n\n")[0],
            epilog="Every option of transformers' TrainingArguments is accepted too (--output_dir, --max_steps, "
            "--learning_rate, --per_device_train_batch_size, --bf16, --push_to_hub, ...): --help-all lists them. "
            "Options are accepted as --kebab-case or --snake_case.",
        )
    parser.add_argument(
        "config",
        nargs="?",
        metavar="CONFIG.yaml",
        help="a YAML or JSON file of arguments (e.g. configs/demo-cpu.yaml); flags after it override its values",
    )
    parser.add_argument("--help-all", action="store_true", help="also list transformers' TrainingArguments options")
    if not full:  # --help-all lists TrainingArguments' own --debug VALUE
        parser.add_argument(
            "--debug",
            nargs="?",
            metavar="VALUE",
            help="alone: show the full traceback of an error; with a value: TrainingArguments' --debug",
        )
    parser.print_help()


def interrupted(argv: list[str]) -> str:
    """The Ctrl-C line: training resumes only with ``resume_from_checkpoint`` (a flag or a config key)."""
    resumes = any(a.split("=")[0] in ("--resume_from_checkpoint", "--resume-from-checkpoint") for a in argv)
    config = config_file(argv)
    if not resumes and config is not None:
        try:
            resumes = bool(read_config(config).get("resume_from_checkpoint"))
        except InputError:
            pass  # the config could not be read: nothing resumes
    if resumes:
        return RESUMES
    return (
        "interrupted: rerun the same command with --resume_from_checkpoint last to go on from the newest checkpoint "
        "saved in its output_dir (without it, training starts again)"
    )


@one_line_errors(valued_debug_is_the_commands=True, interrupted=interrupted)  # --debug VALUE: TrainingArguments'
def cli_main(argv: list[str] | None = None) -> int:
    """``python train.py``: train (see :func:`main`), or print the help; 0 when the run finished."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--help-all" in argv or "-h" in argv or "--help" in argv:
        print_help(full="--help-all" in argv)
        return 0
    check_config_argument(argv)
    config = config_file(argv)
    if config is not None:
        read_config(config)  # a missing or broken config fails before torch is imported
    main(argv)
    return 0


if __name__ == "__main__":
    sys.exit(cli_main())
