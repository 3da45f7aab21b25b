"""Where a release's outputs are, and what the later stages read back from them."""

from __future__ import annotations

import json
from pathlib import Path

from wikiformer_kit.dataset_scripts.tasks.registry import SYSTEMS

TASKS = SYSTEMS["wikiformer"]


def json_record(path: Path) -> dict | None:
    """The JSON a stage wrote at ``path``, or None where it wrote none."""
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def task_dirs(out: Path, tasks: tuple[str, ...] = TASKS) -> list[Path]:
    """The task dataset folders the build wrote, in the paper's order."""
    return [
        out / "datasets" / f"wikiformer-{task}" for task in tasks if (out / "datasets" / f"wikiformer-{task}").is_dir()
    ]


def published_wikir(out: Path, namespace: str) -> tuple[str, str] | None:
    """``(dataset id, "test")`` of the WIKIR collection the release publishes under ``namespace``, else None."""
    from wikiformer_kit.model_card import NAMESPACE_PLACEHOLDER

    summary = json_record(out / "wikir" / ".build" / "summary.json")
    if namespace == NAMESPACE_PLACEHOLDER or summary is None:
        return None
    return f"{namespace}/wikir-{summary['language'] or 'xx'}", "test"


def nanobeir_figures(eval_dir: Path):
    """The NanoBEIR figures the eval stage measured (``eval_dir/nanobeir/nanobeir.json``), or None. Release chooses
    the checkpoint and the fusion on WIKIR or ``--eval-collection``, never on NanoBEIR: they are test figures."""
    from wikiformer_kit.eval.nanobeir_report import FILE_NAME, NanoBEIRRecord

    path = eval_dir / "nanobeir" / FILE_NAME
    return NanoBEIRRecord.load(path) if path.exists() else None
