"""Rewind an idle chat to one of its user messages: the files, the conversation, or both.

- Files: :func:`restore_code` to the snapshot taken in that message's turn, or else the next
  snapshot after it in the log (no agent tool ran in between, so the files were the same).
  It snapshots first, rewrites only files that differ, removes files created since, and leaves
  files it could not store alone (listed). The safety snapshot is journaled as a
  ``checkpoint`` record, so a later rewind to a message after this one finds the files as
  they were before it.
- Conversation: a ``rewind`` record; replay drops that turn and every later one from the
  transcript and the model's working set, while their cost stays in the total. The read
  tracker is cleared, so the agent must read files again before editing them.

Both refuse while a turn runs. :func:`rewind` is the entry point for a live
:class:`Session` (the kernel, the panel, ``/rewind``); :func:`rewind_chat` works on an open
log alone (``zengine rewind``).

Other chats of the same project share its checkpoints: a code rewind also reverts what they
changed since the checkpoint. :func:`rewind_points` lists, per point, the other chats' edits
since (the warning before); the result lists those the rewind put back (``_other_chats.py``).
"""

from __future__ import annotations

import asyncio
import bisect
from typing import TYPE_CHECKING

from zengine_jupyter.engine._other_chats import edits_since, load_other_chats
from zengine_jupyter.host.checkpoint import restore_code
from zengine_jupyter.protocol import (
    CheckpointError,
    CheckpointRecord,
    MessageRecord,
    RewindPoint,
    RewindRecord,
    RewindResult,
    Rewound,
    TurnStartRecord,
    ZengineError,
)
from zengine_jupyter.store import scan_file

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from datetime import datetime
    from pathlib import Path

    from zengine_jupyter.engine._session import Session
    from zengine_jupyter.host.checkpoint import ShadowRepository
    from zengine_jupyter.protocol import LogRecord, OtherChatEdits
    from zengine_jupyter.store import SessionWriter

__all__ = [
    "describe_other_chats",
    "describe_rewind",
    "find_point",
    "points_from_log",
    "preview_points",
    "rewind",
    "rewind_chat",
    "rewind_points",
    "with_other_chats",
]

NO_TOOL_SINCE = (
    "no tool has run since that message, so the agent changed no file: the files are left "
    "as they are"
)


def points_from_log(
    transcript: Sequence[LogRecord], records: Sequence[LogRecord]
) -> list[RewindPoint]:
    """The visible user messages (``transcript``) with the checkpoint a code rewind to each
    would restore, found in the whole log (``records``, rewound turns included)."""
    turn_at: dict[str, int] = {}
    marks: list[int] = []
    ids: list[str] = []
    times: list[datetime] = []
    for i, record in enumerate(records):
        if isinstance(record, TurnStartRecord):
            turn_at[record.turn_id] = i
        elif isinstance(record, CheckpointRecord):
            marks.append(i)
            ids.append(record.commit or record.checkpoint_id)
            # taken before the record was written: from its turn's start, to be safe
            start = turn_at.get(record.turn_id or "")
            times.append(min(record.ts, records[start].ts) if start is not None else record.ts)
    points: list[RewindPoint] = []
    turn: TurnStartRecord | None = None
    for record in transcript:
        if isinstance(record, TurnStartRecord):
            turn = record
        elif turn is not None and isinstance(record, MessageRecord) and record.role == "user":
            at = turn_at.get(turn.turn_id)
            k = len(marks) if at is None else bisect.bisect_right(marks, at)
            points.append(
                RewindPoint(
                    number=len(points) + 1,
                    turn_id=turn.turn_id,
                    message_id=record.id,
                    prompt=record.text,
                    created=record.ts,
                    checkpoint_id=ids[k] if k < len(ids) else None,
                    checkpoint_at=times[k] if k < len(times) else None,
                )
            )
            turn = None
    return points


def find_point(points: Sequence[RewindPoint], wanted: str, chat: str) -> RewindPoint:
    """A point by number (``3``), turn id or message id (or a unique prefix of 4+ digits)."""
    wanted = wanted.strip().lstrip("#")
    if wanted.isdigit() and 1 <= int(wanted) <= len(points):
        return points[int(wanted) - 1]
    if len(wanted) >= 4:
        hits = [p for p in points if p.turn_id.startswith(wanted) or p.message_id == wanted]
        if len(hits) == 1:
            return hits[0]
    raise ZengineError(
        f"chat {chat} has no user message {wanted!r} to rewind to"
        + (f" (it has {len(points)})" if points else " (it has none yet)"),
        hint="give the message's number or turn id, as `/rewind` or "
        f"`zengine checkpoints list {chat}` shows them",
    )


async def _read_points(writer: SessionWriter) -> list[RewindPoint]:
    scan = await asyncio.to_thread(scan_file, writer.log_path)
    return points_from_log(writer.state().transcript, scan.records)


async def with_other_chats(
    points: list[RewindPoint], sessions: Path, chat: str, project: str | None
) -> list[RewindPoint]:
    """``points`` of ``chat`` (in the store at ``sessions``), each with the edits other chats
    of ``project`` made since its checkpoint: what a code rewind to it would also revert."""
    times = [p.checkpoint_at for p in points if p.checkpoint_id and p.checkpoint_at]
    if not times:
        return points
    chats = await asyncio.to_thread(load_other_chats, sessions, chat, project, min(times))
    return [
        p.model_copy(update={"other_chats": edits_since(chats, p.checkpoint_at)})
        if p.checkpoint_id and chats
        else p
        for p in points
    ]


async def preview_points(writer: SessionWriter) -> list[RewindPoint]:
    """The points of the chat open in ``writer`` with :func:`with_other_chats`: the warning
    to show before a rewind."""
    points = await _read_points(writer)
    return await with_other_chats(points, writer.folder.parent, writer.id, writer.state().project)


async def rewind_chat(
    writer: SessionWriter,
    shadow: ShadowRepository | None,
    to: str,
    *,
    code: bool,
    conversation: bool,
    record: Callable[[LogRecord], None] | None = None,
) -> RewindResult:
    """Rewind the chat open in ``writer`` to message ``to`` (see the module docstring).

    ``record`` appends a record (default ``writer.append``; a session journals it). Files are
    restored before the conversation is touched: if that fails, nothing changed in the chat.
    """
    if not (code or conversation):
        raise ZengineError("nothing to rewind", hint="ask for the code, the conversation or both")
    append = record or writer.append
    point = find_point(await _read_points(writer), to, writer.id)
    restore = None
    code_note = None
    others: list[OtherChatEdits] = []
    if code and point.checkpoint_id is None:
        code_note = NO_TOOL_SINCE
    elif code:
        if shadow is None:
            raise CheckpointError(
                "cannot restore files: git is not installed, so this chat has no checkpoints",
                hint="install git, or rewind only the conversation",
            )
        restore = await restore_code(shadow, point.checkpoint_id)  # type: ignore[arg-type]
        safety = restore.safety_checkpoint
        append(CheckpointRecord(checkpoint_id=safety, commit=safety))
        others = await _reverted_for_others(writer, point, {*restore.restored, *restore.removed})
    removed = 0
    if conversation:
        before = writer.state().message_count
        append(RewindRecord(to_turn_id=point.turn_id,
                            checkpoint_id=restore.target if restore else None))  # fmt: skip
        removed = before - writer.state().message_count
    writer.write_meta()
    return RewindResult(
        to_turn_id=point.turn_id,
        prompt=point.prompt,
        conversation=conversation,
        messages_removed=removed,
        code=restore,
        code_note=code_note,
        other_chats=others,
    )


async def _reverted_for_others(
    writer: SessionWriter, point: RewindPoint, put_back: set[str]
) -> list[OtherChatEdits]:
    """The other chats' edits since ``point``'s checkpoint among the files put back."""
    if not put_back:
        return []
    chats = await asyncio.to_thread(
        load_other_chats, writer.folder.parent, writer.id, writer.state().project,
        point.checkpoint_at,
    )  # fmt: skip
    return edits_since(chats, point.checkpoint_at, only=put_back)


async def rewind_points(session: Session) -> list[RewindPoint]:
    """The messages ``session`` can be rewound to, oldest first, each with the edits other
    chats of the project made since its checkpoint (a code rewind reverts those too)."""
    return await preview_points(session.writer)


async def rewind(
    session: Session, to: str, *, code: bool = True, conversation: bool = True
) -> RewindResult:
    """Rewind an idle ``session`` to user message ``to`` (number, turn id or message id).

    Raises :class:`TurnInProgressError` while a turn runs; publishes :class:`Rewound`.
    """
    async with session.idle("rewind"):
        result = await rewind_chat(session.writer, session.shadow, to, code=code,
                                   conversation=conversation,
                                   record=session.journal.record)  # fmt: skip
        session.ctx.reads.forget()  # files or the agent's memory of them changed: read again
        live = session.ctx.live
        if result.code is not None and live is not None:
            # open notebooks the turns since edited live: their cells back in the page
            opened = await live.restore(await _turns_since(session.writer, result.to_turn_id))
            if opened:
                result = result.model_copy(update={"open_notebooks": opened})
    session.journal.publish(
        Rewound(session_id=session.id, result=result, text=describe_rewind(result),
                warnings=describe_other_chats(result.other_chats, done=True))
    )  # fmt: skip
    return result


async def _turns_since(writer: SessionWriter, turn_id: str) -> list[str]:
    """``turn_id`` and every turn after it *in the whole log* (rewound turns included, as
    for the files: their live edits may still be in an open notebook), oldest first."""
    scan = await asyncio.to_thread(scan_file, writer.log_path)
    turns = [r.turn_id for r in scan.records if isinstance(r, TurnStartRecord)]
    return turns[turns.index(turn_id) :] if turn_id in turns else []


def describe_rewind(result: RewindResult) -> str:
    """The result in plain words (for ``/rewind`` and ``zengine rewind``)."""
    lines = []
    prompt = " ".join(result.prompt.split())
    prompt = prompt if len(prompt) <= 60 else prompt[:59] + "…"
    if result.conversation:
        lines.append(
            f'rewound the conversation to before "{prompt}": {result.messages_removed} '
            "messages removed (what they cost stays in the chat's total); the agent will "
            "read files again before editing them"
        )
    code = result.code
    if code is not None:
        lines.append(
            f"files put back as they were at checkpoint {code.target[:12]}: "
            f"{len(code.restored)} restored, {len(code.removed)} created since removed"
        )
        lines += [f"  restored {p}" for p in code.restored[:20]]
        lines += [f"  removed  {p}" for p in code.removed[:20]]
        if len(code.restored) + len(code.removed) > 40:
            lines.append("  …")
        for item in code.left_alone:
            why = item.reason.replace("_", " ")
            lines.append(f"  left alone (not stored, {why}): {item.path}")
        lines.append(
            f"  the files as they were just before this rewind are checkpoint "
            f"{code.safety_checkpoint[:12]}"
        )
    elif result.code_note:
        lines.append(f"files: {result.code_note}")
    if result.open_notebooks:
        lines.append("open notebooks put back in the page as they were: "
                     + ", ".join(result.open_notebooks))  # fmt: skip
    lines += describe_other_chats(result.other_chats, done=True)
    lines.append(result.note)
    return "\n".join(lines)


def describe_other_chats(chats: Sequence[OtherChatEdits], *, done: bool = False) -> list[str]:
    """One line per other chat whose edits a code rewind reverts (``done``: reverted)."""
    verb = "also reverted" if done else "a code rewind also reverts"
    lines = []
    for chat in chats:
        who = f"(chat {' '.join(chat.title.split())[:40]} · {chat.session_id})"
        if chat.paths:
            shown = ", ".join(chat.paths[:8]) + (", …" if len(chat.paths) > 8 else "")
            lines.append(f"{verb} changes another chat made since: {shown} {who}")
        if chat.commands:
            runs = f"{chat.commands} shell command{'s' if chat.commands != 1 else ''}"
            then = "any file they changed was put back too" if done else (
                "a code rewind puts back any file they changed too")  # fmt: skip
            lines.append(f"another chat ran {runs} since {who}: {then}")
    return lines
