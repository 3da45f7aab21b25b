"""Pre-training Wikiformer, PROP and HARP at one budget, for the comparisons of ``experiments.baselines`` and
``experiments.finetune_comparison`` (their tables: docs/baselines.md, "The comparison at a CPU budget").

Method: docs/benchmarks.md ("How each experiment runs", ``pretraining``).
"""

from __future__ import annotations

import contextlib
import logging
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import yaml

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEMO_CONFIGS = {"wikiformer": "demo-cpu.yaml", "prop": "prop-demo-cpu.yaml", "harp": "harp-demo-cpu.yaml"}


def config_overrides(items: list[str], flag: str = "--pretrain-set") -> dict[str, dict]:
    """``[SYSTEM:]KEY=VALUE`` items as ``{system or "": {key: value}}``, each value read as YAML."""
    overrides: dict[str, dict] = {}
    for item in items:
        target, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"{flag} {item!r}: expected [SYSTEM:]KEY=VALUE")
        system, _, key = target.rpartition(":")
        if system and system not in DEMO_CONFIGS:
            raise SystemExit(f"{flag} {item!r}: {system!r} is not one of {', '.join(DEMO_CONFIGS)}")
        overrides.setdefault(system, {})[key] = yaml.safe_load(value)
    return overrides


def pretraining_configs(
    folder: Path, steps: int, start_model: str, doc_length: int | None = None, overrides: list[str] = ()
) -> Path:
    """The three demo configs at one budget in ``folder`` (``wikiformer.yaml``, ``prop.yaml``, ``harp.yaml``):
    ``steps`` steps from ``start_model``, the rate halved at 80% of the steps, documents of at most ``doc_length``
    tokens, no evaluation during pre-training, then the ``[SYSTEM:]KEY=VALUE`` overrides."""
    values = config_overrides(list(overrides))
    folder.mkdir(parents=True, exist_ok=True)
    for system, name in DEMO_CONFIGS.items():
        config = yaml.safe_load((PROJECT_ROOT / "wikiformer_kit" / "configs" / name).read_text(encoding="utf-8"))
        config.update(model_name_or_path=start_model, max_steps=steps, eval_strategy="no",
                      save_strategy="no", load_best_model_at_end=False, test_dirs=[])  # fmt: skip
        config.pop("eval_dir", None)
        config.pop("metric_for_best_model", None)
        config["lr_drop_step"] = int(steps * 0.8)
        if doc_length:
            config["doc_max_lengths"] = [min(n, doc_length) for n in config["doc_max_lengths"]]
        config.update(values.get("", {}), **values.get(system, {}))
        (folder / f"{system}.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return folder


def train_system(system: str, args, out: Path, to_log: bool = False) -> Path:
    """Build, train and export one system with ``release.py``; returns its Hub-ready model folder.

    ``args`` names ``input``, ``seed``, ``max_steps``, ``config_dir`` (a folder with ``<system>.yaml``, or None for
    the demo config) and ``num_proc``. The command's output goes to the console, or with ``to_log`` to
    ``out/<system>.log`` (several at once); a failure ends the run with the log's last lines.
    """
    folder = out / system
    command = [sys.executable, "release.py", "--system", system, "--output-dir", str(folder)]
    command += ["--stages", "datasets,train,export", "--seed", str(args.seed), "--max-steps", str(args.max_steps)]
    command += ["--input", *args.input, "--num-proc", str(args.num_proc)]
    if args.config_dir:
        config = Path(args.config_dir) / f"{system}.yaml"
        command += ["--config", str(config)]
        if yaml.safe_load(config.read_text(encoding="utf-8")).get("eval_strategy") == "no":
            command += ["--select-on-eval-collection"]  # nothing selects a checkpoint: no WIKIR split to build
    started = time.perf_counter()
    logging.info("$ %s", " ".join(command[1:]))
    out.mkdir(parents=True, exist_ok=True)
    log_path = out / f"{system}.log"
    with open(log_path, "a", encoding="utf-8") if to_log else contextlib.nullcontext() as log:
        done = subprocess.run(command, cwd=PROJECT_ROOT, stdout=log, stderr=subprocess.STDOUT if to_log else None)
    if done.returncode:
        tail = log_path.read_text(encoding="utf-8").splitlines()[-15:] if to_log else []
        raise SystemExit(
            "\n".join([f"{system}: release.py failed (exit {done.returncode})" + (":" if tail else ""), *tail])
        )
    logging.info("%s: built and trained in %.0f s", system, time.perf_counter() - started)
    return folder / system


def train_systems(systems: list[str], args, out: Path, parallel: bool = False) -> dict[str, Path]:
    """``train_system`` for each system, one after the other or all at once (a GPU with room for all; each then
    writes ``out/<system>.log``)."""
    if not parallel:
        return {system: train_system(system, args, out) for system in systems}
    with ThreadPoolExecutor(len(systems)) as pool:
        futures = {system: pool.submit(train_system, system, args, out, True) for system in systems}
        return {system: future.result() for system, future in futures.items()}
