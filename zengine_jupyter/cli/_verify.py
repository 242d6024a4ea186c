"""``zengine checks`` (discovery) and ``zengine verify`` (run checks directly, print records).

``verify`` here runs with the direct runner and prints the records; recording them in a
session, through the permission gate and the sandbox, is the engine's Verify tool.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from zengine_jupyter.config import aload_settings, data_dir, find_project_root
from zengine_jupyter.protocol import CheckRecord, CheckSpec, VerificationError
from zengine_jupyter.verify import RunCheckOptions, discover_checks, merge_checks, run_check

if TYPE_CHECKING:
    import argparse

__all__ = ["checks_command", "render_checks", "render_record", "run_checks_command"]


def _project(args: argparse.Namespace) -> Path:
    if args.project is not None:
        if not args.project.is_dir():
            raise VerificationError(
                f"project folder {args.project} does not exist", hint="pass an existing --project"
            )
        return Path(args.project).resolve()
    return find_project_root(Path.cwd())


async def _known_checks(project: Path) -> list[CheckSpec]:
    """Discovered checks with ``[[verification.checks]]`` applied (a project's own entries
    only when the folder is trusted), as a chat sees them."""
    from zengine_jupyter.engine.verify import configured_checks

    settings = await aload_settings(project)
    return merge_checks(await discover_checks(project), configured_checks(settings))


def render_checks(checks: list[CheckSpec]) -> str:
    if not checks:
        return "no checks found (add [[verification.checks]] entries to define some)"
    width = max(len(c.id) for c in checks)
    lines = [f"{'id':<{width}}  {'kind':<9}  {'cwd':<12}  command"]
    lines += [f"{c.id:<{width}}  {c.kind:<9}  {c.cwd:<12}  {c.display_command()}" for c in checks]
    return "\n".join(lines)


def checks_command(args: argparse.Namespace) -> int:
    checks = asyncio.run(_known_checks(_project(args)))
    if args.json:
        sys.stdout.write(json.dumps([c.model_dump(mode="json") for c in checks], indent=2))
    else:
        sys.stdout.write(render_checks(checks))
    sys.stdout.write("\n")
    return 0


def render_record(record: CheckRecord) -> str:
    verdict = "PASS" if record.passed else "FAIL"
    counts = record.counts
    parts = [
        f"{value} {name}"
        for name, value in (
            ("passed", counts.passed),
            ("failed", counts.failed),
            ("skipped", counts.skipped),
            ("errors", counts.errors),
        )
        if value
    ]
    code = "stopped" if record.exit_code is None else f"exit {record.exit_code}"
    summary = f"{verdict} {record.check_id} ({code}, {record.duration_s:.1f} s)"
    if parts:
        summary += ": " + ", ".join(parts)
    lines = [summary, f"  fingerprint {record.fingerprint_before} -> {record.fingerprint_after}"]
    lines.append(f"  output: {record.artifact}")
    if not record.passed:
        tail = record.output_tail.rstrip().splitlines()[-15:]
        lines += [f"  | {line}" for line in tail]
    return "\n".join(lines)


async def _run(args: argparse.Namespace) -> list[CheckRecord]:
    project = _project(args)
    known = await _known_checks(project)
    by_id = {c.id: c for c in known}
    unknown = [name for name in args.checks if name not in by_id]
    if unknown:
        raise VerificationError(
            f"unknown check(s) {', '.join(unknown)} in {project}",
            hint=f"known: {', '.join(by_id) or 'none'} (see zengine checks)",
        )
    chosen = [by_id[name] for name in args.checks] if args.checks else known
    options = RunCheckOptions(
        project_root=project,
        artifacts_dir=data_dir() / "artifacts" / "verify",
        timeout_s=args.timeout,
    )
    records: list[CheckRecord] = []
    for check in chosen:
        record = await run_check(check, options)
        records.append(record)
        if not args.json:
            sys.stdout.write(render_record(record) + "\n")
            sys.stdout.flush()
    return records


def run_checks_command(args: argparse.Namespace) -> int:
    records = asyncio.run(_run(args))
    if args.json:
        sys.stdout.write(json.dumps([r.model_dump(mode="json") for r in records], indent=2) + "\n")
    elif not records:
        sys.stdout.write("no checks to run\n")
    return 0 if all(r.passed for r in records) else 1
