"""Run one check and record it: fingerprints around the run, the output's end inline,
all of it as an artifact, and the test counts parsed from it.

How the command is actually started is a port (:class:`CheckRunner`): the engine's
implementation goes through the permission gate and the sandbox; :class:`DirectRunner`
runs it with :func:`zengine_jupyter.host.run`, for the CLI and tests.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from zengine_jupyter.config import private_dir
from zengine_jupyter.host import RunOptions, run, workspace_fingerprint
from zengine_jupyter.protocol import (
    CheckRecord,
    CheckSpec,
    ProcessTimeoutError,
    VerificationError,
)
from zengine_jupyter.verify.parse import parse_counts

__all__ = [
    "TAIL_BYTES",
    "CheckInvocation",
    "CheckOutput",
    "CheckRunner",
    "DirectRunner",
    "RunCheckOptions",
    "output_tail",
    "resolve_invocation",
    "run_check",
]

TAIL_BYTES = 4096
"""How much of the output's end a record keeps inline."""


@dataclass(frozen=True)
class CheckInvocation:
    """Exactly what to start: argv (a shell string becomes ``sh -c``), an absolute cwd."""

    check: CheckSpec
    argv: tuple[str, ...]
    cwd: Path
    timeout_s: float


@dataclass(frozen=True)
class CheckOutput:
    """What a run left: the exit code (None if stopped at its deadline), stdout then stderr."""

    exit_code: int | None
    output: bytes
    timed_out: bool = False


class CheckRunner(Protocol):
    """The port the engine implements (gate + sandbox). It may raise to refuse a run."""

    async def run_check(self, invocation: CheckInvocation) -> CheckOutput: ...


class DirectRunner:
    """Runs the command directly through ``host.run`` (argv list, environment allowlist)."""

    async def run_check(self, invocation: CheckInvocation) -> CheckOutput:
        options = RunOptions(cwd=invocation.cwd, timeout_s=invocation.timeout_s)
        try:
            done = await run(invocation.argv, options)
        except ProcessTimeoutError as exc:
            return CheckOutput(None, f"{exc}\n".encode(), timed_out=True)
        output = done.stdout
        if done.stderr:
            output += (b"\n" if output and not output.endswith(b"\n") else b"") + done.stderr
        return CheckOutput(done.returncode, output)


@dataclass(frozen=True)
class RunCheckOptions:
    """Where and how to run checks for one project."""

    project_root: Path
    artifacts_dir: Path
    runner: CheckRunner = field(default_factory=DirectRunner)
    timeout_s: float = 900.0
    python: str | None = None
    """What a command's leading ``python`` means; None: the project's ``.venv`` interpreter
    if it has one, else the interpreter zengine runs in (the kernel's). ``python -m
    zengine_jupyter...`` (the notebooks check) always runs in zengine's interpreter."""


def resolve_invocation(check: CheckSpec, options: RunCheckOptions) -> CheckInvocation:
    """The argv and absolute cwd for ``check`` (pure apart from looking for a ``.venv``)."""
    root = options.project_root.resolve()
    cwd = (root / check.cwd).resolve()
    if cwd != root and root not in cwd.parents:
        raise VerificationError(
            f"check {check.id!r} has cwd {check.cwd!r}, outside the project {root}",
            hint="set the check's cwd to a folder inside the project",
        )
    if isinstance(check.command, str):
        argv: tuple[str, ...] = ("sh", "-c", check.command)
    else:
        argv = tuple(check.command)
    if not argv:
        raise VerificationError(f"check {check.id!r} has an empty command")
    if argv[0] == "python":
        if argv[1:2] == ("-m",) and argv[2:3] and argv[2].startswith("zengine_jupyter."):
            python = sys.executable  # our own entry points need zengine's interpreter
        else:
            python = options.python or _python_for(root)
        argv = (python, *argv[1:])
    return CheckInvocation(check, argv, cwd, options.timeout_s)


def _python_for(root: Path) -> str:
    venv = root / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


async def run_check(check: CheckSpec, options: RunCheckOptions) -> CheckRecord:
    """Run ``check`` through ``options.runner`` and return its record.

    Errors from the runner (a refused or unstartable command) propagate: no record is
    made for a run that did not happen.
    """
    invocation = resolve_invocation(check, options)
    before = await workspace_fingerprint(options.project_root)
    started = datetime.now(UTC)
    clock = time.perf_counter()
    result = await options.runner.run_check(invocation)
    duration = time.perf_counter() - clock
    finished = datetime.now(UTC)
    after = await workspace_fingerprint(options.project_root)
    artifact = await asyncio.to_thread(
        _write_artifact, options.artifacts_dir, check, started, result.output
    )
    text = result.output.decode("utf-8", errors="replace")
    return CheckRecord(
        check_id=check.id,
        kind=check.kind,
        command=check.command,
        cwd=check.cwd,
        exit_code=result.exit_code,
        passed=result.exit_code == 0 and not result.timed_out,
        counts=parse_counts(text, check.parser),
        duration_s=round(duration, 3),
        output_tail=output_tail(result.output),
        artifact=str(artifact),
        fingerprint_before=before.digest,
        fingerprint_after=after.digest,
        started=started,
        finished=finished,
    )


def output_tail(output: bytes, limit: int = TAIL_BYTES) -> str:
    """The last ``limit`` bytes, starting at a line when one begins soon enough."""
    if len(output) <= limit:
        return output.decode("utf-8", errors="replace")
    tail = output[-limit:]
    newline = tail.find(b"\n")
    if 0 <= newline < limit // 4:
        tail = tail[newline + 1 :]
    return "[...]\n" + tail.decode("utf-8", errors="replace")


_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def _write_artifact(folder: Path, check: CheckSpec, started: datetime, output: bytes) -> Path:
    """The whole output, written atomically (temp file + rename)."""
    private_dir(folder)
    name = f"check-{started:%Y%m%dT%H%M%S%f}-{_UNSAFE.sub('_', check.id)}.log"
    target = folder / name
    fd, temp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".log")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(output)
        Path(temp).replace(target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return target
