"""Train a Wikiformer re-ranker: group-wise pre-training on the Wikipedia tasks, or fine-tuning, on one GPU or many.

Run ``python train.py configs/demo-cpu.yaml`` (a YAML or JSON file of arguments; flags after it override it), or
pass every argument as a flag. Multi-GPU / multi-node: ``torchrun --nproc_per_node N train.py <config>``.

This file is the command line (:func:`main`, :func:`load_model`); the arguments, data, collator, losses,
evaluation and trainer live in the :mod:`training` package (see its docstring for the data flow and the loss).
Every public name of the package is re-exported here, so ``from train import ...`` keeps working.
"""

from __future__ import annotations

import logging

import torch
import transformers
from transformers import AutoTokenizer, set_seed

from modeling_wikiformer import WikiformerForPreTraining, WikiformerForRanking
from training import (  # noqa: F401  (re-exported: ``from train import ...`` predates the package)
    EMBEDDED_MINILM,
    METRIC_NAMES,
    DataArguments,
    DelayedCheckpointCallback,
    GroupCollator,
    GroupDataset,
    ModelArguments,
    RerankEvalSet,
    Task,
    TaskMixtureSampler,
    WikiformerTrainer,
    WikiformerTrainingArguments,
    group_scores,
    load_rerank_eval,
    load_task,
    load_tasks,
    load_test_sets,
    pairwise_hinge,
    parse_arguments,
    rerank_metrics,
    resolve_model_path,
    softmax_cross_entropy,
)


def load_model(model_args: ModelArguments, with_mlm: bool):
    """Load a Wikiformer model to train (with the MLM head when ``with_mlm``); a new ranking head per ``head_init``.

    The weights are float32 whatever dtype the checkpoint is stored in (float16 is common on the Hub, and
    transformers 5 loads a checkpoint in its stored dtype): AdamW on float16 weights turns the first updates into
    NaN. bf16/fp16 training goes through the Trainer's autocast (``--bf16``/``--fp16``) on these float32 weights.
    """
    path = resolve_model_path(model_args.model_name_or_path)
    model_class = WikiformerForPreTraining if with_mlm else WikiformerForRanking
    kwargs = {"attn_implementation": model_args.attn_implementation} if model_args.attn_implementation else {}
    model, info = model_class.from_pretrained(path, output_loading_info=True, dtype=torch.float32, **kwargs)
    if model_args.head_init not in ("zero", "random"):
        raise ValueError(f"--head_init must be zero or random, got {model_args.head_init!r}")
    if model_args.head_init == "zero" and any(key.startswith("classifier.") for key in info["missing_keys"]):
        torch.nn.init.zeros_(model.classifier.weight)
        torch.nn.init.zeros_(model.classifier.bias)
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
    model_args, data_args, training_args = parse_arguments(argv)
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
        max_length=model.config.max_position_embeddings,
        pad_to_multiple_of=data_args.pad_to_multiple_of,
        mlm_probability=training_args.mlm_probability if training_args.mlm_weight > 0 else 0.0,
        whole_word_mask=training_args.mlm_whole_word,
        max_predictions=training_args.mlm_max_predictions,
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
    for test_set in test_sets:  # the kept model, once, on collections that never chose a checkpoint
        trainer.evaluate(test_set, metric_key_prefix=f"test_{test_set.name}")
    trainer.log_metrics("train", result.metrics)
    trainer.save_metrics("train", result.metrics)
    trainer.save_state()
    if training_args.push_to_hub:
        trainer.push_to_hub(commit_message="Wikiformer training run")
    return trainer


if __name__ == "__main__":
    main()
