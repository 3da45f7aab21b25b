"""The stages of a release and what each finished one was made from, so that a rerun reuses it only when nothing
changed (``OUT/stages/<stage>.json``)."""

from __future__ import annotations

import hashlib
import json
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from wikiformer_kit import __version__
from wikiformer_kit.dataset_scripts.atomic_files import atomic_write
from wikiformer_kit.dataset_scripts.build_params import differing_keys
from wikiformer_kit.dataset_scripts.file_states import changed_files, file_states
from wikiformer_kit.dataset_scripts.stage_console import StageReport
from wikiformer_kit.home import kit_environment
from wikiformer_kit.release.options import STAGES
from wikiformer_kit.release.stage_runner import Invocation, run_logged


class Stages:
    """Runs stage commands, recording what each finished one was made from so that a rerun reuses it only when
    nothing changed. Each stage is one console line and its progress, the commands' output in
    ``OUT/logs/<stage>.log`` (its tail shown if a command fails); with ``verbose``, the commands print to the console."""

    def __init__(self, output_dir: Path, redo: str | None, verbose: bool = False):
        self.output_dir = output_dir
        self.record_dir = output_dir / "stages"
        self.record_dir.mkdir(parents=True, exist_ok=True)
        self.log_dir = output_dir / "logs"
        self.redo_from = STAGES.index(redo) if redo else len(STAGES)
        self.verbose = verbose

    def signature(self, stage: str, arguments: list) -> dict:
        """What ``stage`` is made from: its arguments, the size and time of every file or folder they name outside
        the release's own folder, the kit's version, and the records of the stages before it (one that ran again
        with other inputs makes this one stale)."""
        earlier = {
            name: hashlib.sha256(path.read_bytes()).hexdigest()[:16]
            for name in STAGES[: STAGES.index(stage)]
            if (path := self.record_dir / f"{name}.json").is_file()
        }
        tokens = [str(item) for part in arguments for item in (part if isinstance(part, list) else [part])]
        return {
            "arguments": arguments,
            "inputs": file_states(tokens, outside=[self.output_dir]),
            "kit": __version__,
            "after": earlier,
        }

    def done(self, stage: str, signature: dict) -> bool:
        """Whether ``stage`` finished earlier from ``signature``; when it finished from something else, one line
        says what changed."""
        record = self.record_dir / f"{stage}.json"
        if STAGES.index(stage) >= self.redo_from or not record.exists():
            return False
        try:
            before = json.loads(record.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            before = None
        if before == signature:
            return True
        print(f"[{stage}] finished earlier from other inputs ({stage_changes(before, signature)}): running it again")
        return False

    def finish(self, stage: str, signature: dict) -> None:
        atomic_write(
            self.record_dir / f"{stage}.json",
            lambda tmp: tmp.write_text(json.dumps(signature, indent=1), encoding="utf-8"),
        )

    def run(self, stage: str, invocations: list[Invocation], describe: Callable[[], str] | None = None) -> None:
        """Run the stage's commands (each a subprocess in the current directory, from anything with the
        ``command()`` of an :class:`Invocation`) unless already done.

        ``describe``, if given, returns what the stage produced, for its console line.
        """
        signature = self.signature(stage, [i.command()[1:] for i in invocations])  # not the interpreter path
        if self.done(stage, signature):
            print(f"[{stage}] finished earlier with the same command: reused", flush=True)
            return
        log = self.log_dir / f"{stage}.log"
        report = StageReport(stage, None if self.verbose else log)
        if not self.verbose:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            log.write_text("", encoding="utf-8")
        for invocation in invocations:
            command = invocation.command()
            shown = shlex.join(["python", *command[1:]])
            if self.verbose:
                print(f"[{stage}] $ {shown}", flush=True)
                returncode = subprocess.run(command, env=kit_environment()).returncode
            else:
                returncode = run_logged(command, log, f"[{stage}]", shown)
            if returncode != 0:
                if not self.verbose:
                    tail = log.read_text(encoding="utf-8", errors="replace").replace("\r", "\n").splitlines()
                    print("\n".join(line for line in tail[-40:] if line.strip()), file=sys.stderr)
                    print(f"[{stage}] $ {shown}", file=sys.stderr)
                where = "" if self.verbose else f" (full output: {log})"
                raise SystemExit(
                    f"[{stage}] failed (exit {returncode}){where}; fix it and rerun: finished stages are reused"
                )
        self.finish(stage, signature)
        report.done(describe() if describe else "")


def stage_changes(before: dict | None, now: dict) -> str:
    """What differs between a stage's recorded signature and this run's, in words."""
    if not isinstance(before, dict) or "arguments" not in before:
        return "its record is from an older kit or damaged"
    said = []
    if before["arguments"] != now["arguments"]:
        said.append("other command line")
    said += changed_files(before.get("inputs", {}), now["inputs"])
    if before.get("after") != now["after"]:
        said.append(f"stage {', '.join(differing_keys(before.get('after', {}), now['after']))} ran again")
    if before.get("kit") != now["kit"]:
        said.append(f"the kit's version {before.get('kit')} -> {now['kit']}")
    return "; ".join(said) or "its record differs"
