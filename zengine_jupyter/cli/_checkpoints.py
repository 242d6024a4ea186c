"""``zengine checkpoints list|gc`` and ``zengine rewind``: checkpoints from a terminal.

``rewind`` opens the chat's log for writing (refused while a kernel or ``zengine run`` has the
chat open) and does what ``/rewind`` does, without starting a model or any extension.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zengine_jupyter.config import aload_settings, data_dir
from zengine_jupyter.engine import (
    describe_other_chats,
    describe_rewind,
    gc_notice,
    points_from_log,
    repair_on_resume,
    retention_of,
    rewind_chat,
    with_other_chats,
)
from zengine_jupyter.host import which
from zengine_jupyter.host.checkpoint import ShadowRepository, collect_garbage, format_size
from zengine_jupyter.protocol import CheckpointError, CheckpointExpiredError, ZengineError
from zengine_jupyter.store import SessionStore, scan_file

if TYPE_CHECKING:
    import argparse

    from zengine_jupyter.protocol import CheckpointGc, RewindPoint

__all__: list[str] = []


def _write(text: str) -> None:
    sys.stdout.write(text + "\n")


def _shadow(project: str | None) -> ShadowRepository | None:
    if not project or which("git") is None:
        return None
    return ShadowRepository(Path(project), data_dir())


# ---------------------------------------------------------------- list
async def _describe_point(point: RewindPoint, shadow: ShadowRepository | None) -> dict[str, Any]:
    row: dict[str, Any] = {
        "number": str(point.number),
        "turn_id": point.turn_id,
        "prompt": point.prompt,
        "other_chats": [c.model_dump() for c in point.other_chats],
    }
    if point.checkpoint_id is None:
        row["files"] = "no file changes from here on"
        return row
    row["checkpoint_id"] = point.checkpoint_id
    if shadow is None:
        row["files"] = f"checkpoint {point.checkpoint_id[:12]} (git is not installed)"
        return row
    try:
        info = await shadow.get(point.checkpoint_id)
    except CheckpointExpiredError as exc:
        row["files"] = f"expired: {exc}"
    except CheckpointError:
        row["files"] = f"checkpoint {point.checkpoint_id[:12]} is missing"
    else:
        stored = f"{info.file_count} files"
        if info.not_stored:
            stored += f", {len(info.not_stored)} not stored"
        row["files"] = f"checkpoint {info.id[:12]} ({info.created:%Y-%m-%d %H:%M}, {stored})"
    return row


async def _list(args: argparse.Namespace) -> int:
    snap = await SessionStore().aread(args.session)
    records = (await asyncio.to_thread(scan_file, snap.folder / "log.jsonl")).records
    points = points_from_log(snap.state.transcript, records)
    points = await with_other_chats(points, snap.folder.parent, snap.id, snap.state.project)
    shadow = _shadow(snap.state.project)
    rows = [await _describe_point(p, shadow) for p in points]
    if args.json:
        _write(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    if not rows:
        _write(f"chat {snap.id} has no messages yet")
        return 0
    for row, point in zip(rows, points, strict=True):
        text = " ".join(row["prompt"].split())
        text = text if len(text) <= 70 else text[:69] + "…"
        _write(f"{row['number']:>3}. [{row['turn_id']}] {text}\n     files: {row['files']}")
        for line in describe_other_chats(point.other_chats):
            _write(f"     ! {line}")
    _write(f"rewind with: zengine rewind {snap.id} --to N [--code | --conversation | --both]")
    return 0


def _list_command(args: argparse.Namespace) -> int:
    return asyncio.run(_list(args))


# ---------------------------------------------------------------- rewind
async def _rewind(args: argparse.Namespace) -> int:
    store = SessionStore()
    writer = await store.aopen(args.session)
    try:
        repair_on_resume(writer)
        shadow = _shadow(writer.state().project)
        code = args.what in ("code", "both")
        conversation = args.what in ("conversation", "both")
        result = await rewind_chat(writer, shadow, args.to, code=code, conversation=conversation)
    finally:
        await writer.aclose()
    _write(result.model_dump_json(indent=2) if args.json else describe_rewind(result))
    return 0


def _rewind_command(args: argparse.Namespace) -> int:
    return asyncio.run(_rewind(args))


# ---------------------------------------------------------------- gc
def _recorded_projects() -> tuple[list[Path], list[str]]:
    """Projects with a shadow repository, and notes about repositories that cannot be done."""
    roots, notes = [], []
    top = data_dir() / "checkpoints"
    for git_dir in sorted(top.iterdir()) if top.is_dir() else []:
        marker = git_dir / "zengine-project"
        if not marker.is_file():
            notes.append(f"{git_dir}: made by an older version (project unknown); skipped")
            continue
        root = Path(marker.read_text("utf-8").strip())
        if not root.is_dir():
            notes.append(f"{git_dir}: its project {root} is gone; delete the folder to free it")
            continue
        roots.append(root)
    return roots, notes


async def _gc_one(root: Path) -> CheckpointGc:
    settings = await aload_settings(root)
    shadow = ShadowRepository(root, data_dir())
    return await collect_garbage(shadow, retention_of(settings.settings.checkpoints))


async def _gc(args: argparse.Namespace) -> int:
    roots: list[Path]
    notes: list[str]
    if args.project is not None:
        root = args.project.resolve()
        if not (ShadowRepository(root, data_dir()).paths.git_dir / "HEAD").exists():
            raise ZengineError(f"{root} has no checkpoints yet", hint="nothing to clean up")
        roots, notes = [root], []
    else:
        roots, notes = await asyncio.to_thread(_recorded_projects)
    reports = [await _gc_one(root) for root in roots]
    if args.json:
        payload = {"reports": [r.model_dump() for r in reports], "notes": notes}
        _write(json.dumps(payload, indent=2))
        return 0
    for report in reports:
        _write(
            gc_notice(report)
            or f"checkpoints of {report.project}: {report.kept} kept, nothing to remove "
            f"({format_size(report.size_after)})"
        )
    for note in notes:
        _write(note)
    if not reports and not notes:
        _write("no checkpoints yet")
    return 0


def _gc_command(args: argparse.Namespace) -> int:
    return asyncio.run(_gc(args))
