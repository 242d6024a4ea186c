"""Edits other chats of the same project made after a checkpoint (issue 19.10).

Every chat of a project snapshots the whole project into the project's one shadow repository,
so a code rewind of one chat puts back every file that differs from its checkpoint: edits
another chat made since are reverted too. Telling chats apart inside a snapshot is impossible
(two chats can run at once), so the other chats' own logs say what they changed: the paths
of their Write, Edit and NotebookEdit calls (subagents' included) and how many shell commands
they ran, each dated by its result. A rewind warns with this before (``rewind_points``) and
lists, after, the files it really put back.

Reading never locks or changes another chat (its log may be growing: a partial last line is
ignored), and a chat that cannot be read is skipped.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from zengine_jupyter.protocol import MessageRecord, OtherChatEdits, ToolResultRecord, ZengineError
from zengine_jupyter.store import SessionStore, scan_file

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from datetime import datetime

    from zengine_jupyter.protocol import LogRecord, RecordedToolCall

__all__ = ["FILE_TOOLS", "SHELL_TOOLS", "ChatEdits", "edits_since", "load_other_chats"]

FILE_TOOLS = frozenset({"Write", "Edit", "NotebookEdit"})
"""Built-in tools that change the file named by their ``path`` input."""
SHELL_TOOLS = frozenset({"Bash"})
"""Tools that may change any file."""


@dataclass(frozen=True)
class _Edit:
    at: datetime
    """When its result was recorded (the change was done by then)."""
    path: str | None
    """The file, relative to the project; None for a shell command."""


@dataclass(frozen=True)
class ChatEdits:
    """One other chat of the project and the changes its log records."""

    session_id: str
    title: str
    edits: tuple[_Edit, ...]


def _relative(raw: object, roots: tuple[Path, ...]) -> str | None:
    """``raw`` (a tool's ``path`` input) relative to the project (``roots``: as recorded and
    resolved); None outside it or not a path."""
    if not isinstance(raw, str) or not raw or "\0" in raw:
        return None
    for root in roots:
        path = Path(os.path.normpath(root / raw))
        try:
            rel = path.relative_to(root)
        except ValueError:
            continue
        return None if rel == Path() else PurePosixPath(rel).as_posix()
    return None


def _edits(records: Iterable[LogRecord], roots: tuple[Path, ...]) -> list[_Edit]:
    calls: dict[str, RecordedToolCall] = {}
    found: list[_Edit] = []
    for record in records:
        if isinstance(record, MessageRecord):
            calls.update((made.id, made) for made in record.tool_calls)
        elif isinstance(record, ToolResultRecord):
            call = calls.get(record.tool_call_id)
            if call is None:
                continue
            if call.name in SHELL_TOOLS:
                found.append(_Edit(record.ts, None))
            elif call.name in FILE_TOOLS and (record.repair or not record.is_error):
                # a tool error wrote nothing; an interrupted call may have written
                path = _relative(call.input.get("path"), roots)
                if path is not None:
                    found.append(_Edit(record.ts, path))
    return found


def _same_project(a: str | None, b: Path) -> bool:
    if not a:
        return False
    try:
        return Path(a).resolve() == b
    except (OSError, RuntimeError):
        return False


def load_other_chats(
    sessions: Path, this_chat: str, project: str | None, since: datetime | None
) -> list[ChatEdits]:
    """The chats in ``sessions`` (a store's root) about ``project``, except ``this_chat``,
    updated at or after ``since``, with their recorded changes. Blocking: call in a thread."""
    if not project or since is None:
        return []
    root = Path(project).resolve()
    roots = (Path(project), root) if Path(project) != root else (root,)
    store = SessionStore(sessions)
    try:
        metas = store.list()
    except (OSError, ZengineError):
        return []
    chats: list[ChatEdits] = []
    for meta in metas:
        if meta.id == this_chat or meta.updated < since or not _same_project(meta.project, root):
            continue
        folder = sessions / meta.id
        logs = [folder / "log.jsonl", *sorted((folder / "agents").glob("*.jsonl"))]
        edits: list[_Edit] = []
        for log in logs:
            try:
                edits += _edits(scan_file(log).records, roots)
            except OSError:
                continue
        if edits:
            chats.append(ChatEdits(meta.id, meta.title, tuple(edits)))
    return chats


def edits_since(
    chats: Sequence[ChatEdits], since: datetime | None, only: set[str] | None = None
) -> list[OtherChatEdits]:
    """What each chat changed at or after ``since``; ``only``: keep just these paths."""
    if since is None:
        return []
    out: list[OtherChatEdits] = []
    for chat in chats:
        recent = [e for e in chat.edits if e.at >= since]
        paths = sorted({e.path for e in recent if e.path is not None})
        if only is not None:
            paths = [p for p in paths if p in only]
        commands = sum(e.path is None for e in recent)
        if paths or commands:
            out.append(OtherChatEdits(session_id=chat.session_id, title=chat.title,
                                      paths=paths, commands=commands))  # fmt: skip
    return out
