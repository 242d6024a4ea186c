"""v1 chats: a single ``sessions/<id>.jsonl`` file, converted to a folder on first open.

The v1 shape accepted is documented in ``docs/sessions.md``. Conversion is a pure
function of the file's bytes (and its mtime, for lines without a time), so a chat
listed before import shows the same values after. The original file is only read,
never moved or changed.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from zengine_jupyter.config import write_private
from zengine_jupyter.protocol import (
    MessageRecord,
    ModelChangeRecord,
    RecordedToolCall,
    SessionRecord,
    TitleRecord,
    ToolResultRecord,
    TurnEndRecord,
    TurnStartRecord,
    UsageRecord,
)
from zengine_jupyter.store._lines import SkippedLine, record_line
from zengine_jupyter.store._meta import meta_from_state, write_meta
from zengine_jupyter.store._replay import replay

if TYPE_CHECKING:
    from pathlib import Path

    from zengine_jupyter.protocol import LogRecord

__all__ = ["V1Chat", "convert_v1", "import_v1", "read_v1"]


@dataclass(frozen=True)
class V1Chat:
    """A v1 file read as v2 records, with the lines that could not be used."""

    records: list[LogRecord]
    skipped: list[SkippedLine]


def _time(value: Any, fallback: datetime) -> datetime:
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            parsed = datetime.fromisoformat(value)
            return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    if isinstance(value, int | float) and not isinstance(value, bool):
        with contextlib.suppress(ValueError, OverflowError, OSError):
            return datetime.fromtimestamp(value, UTC)
    return fallback


class _Converter:
    def __init__(self, fallback: datetime) -> None:
        self.records: list[LogRecord] = []
        self.ts = fallback
        self.turn: str | None = None
        self.turns = 0

    def _id(self) -> str:
        return f"v1-{len(self.records) + 1}"

    def add(self, record_type: type[Any], **fields: Any) -> None:
        self.records.append(record_type(id=self._id(), ts=self.ts, **fields))

    def end_turn(self) -> None:
        if self.turn is not None:
            self.add(TurnEndRecord, turn_id=self.turn, status="completed")
            self.turn = None

    def line(self, obj: dict[str, Any]) -> None:
        self.ts = _time(obj.get("ts"), self.ts)
        kind = obj.get("type")
        if kind == "session":
            self.ts = _time(obj.get("created"), self.ts)
            self.add(SessionRecord, project=obj.get("project"), imported_from="v1")
            if obj.get("title"):
                self.add(TitleRecord, title=obj["title"])
            if obj.get("model"):
                self.add(ModelChangeRecord, model=obj["model"])
        elif kind == "user":
            self.end_turn()
            self.turns += 1
            self.turn = f"v1-turn-{self.turns}"
            self.add(TurnStartRecord, turn_id=self.turn)
            self.add(MessageRecord, role="user", text=obj["content"])
        elif kind == "assistant":
            calls = tuple(RecordedToolCall.model_validate(c) for c in obj.get("tool_calls") or ())
            text = obj.get("content") or ""
            self.add(MessageRecord, role="assistant", text=text, tool_calls=calls)
        elif kind == "tool_result":
            self.add(
                ToolResultRecord,
                tool_call_id=obj["tool_call_id"],
                output=obj.get("content") or "",
                is_error=bool(obj.get("is_error", False)),
            )
        elif kind == "usage":
            fields = ("model", "input_tokens", "output_tokens", "cost_usd")
            self.add(UsageRecord, **{k: obj[k] for k in fields if obj.get(k) is not None})
        else:
            raise ValueError(f"unknown v1 type {kind!r}")


def convert_v1(data: bytes, mtime: datetime) -> V1Chat:
    """The v2 records a v1 file's bytes stand for; a bad line costs that line only."""
    conv = _Converter(mtime)
    skipped: list[SkippedLine] = []
    lines = data.split(b"\n")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        before = len(conv.records)
        try:
            obj = json.loads(line)
            if not isinstance(obj, dict):
                raise TypeError("not an object")
            if number == 1 and obj.get("type") != "session":
                conv.add(SessionRecord, imported_from="v1")
                before = len(conv.records)
            conv.line(obj)
        except (ValueError, TypeError, KeyError, ValidationError, RecursionError) as exc:
            del conv.records[before:]
            skipped.append(SkippedLine(number, "damaged", f"v1 line: {exc}"[:200]))
    if not conv.records or not isinstance(conv.records[0], SessionRecord):
        conv.records.insert(0, SessionRecord(id="v1-0", ts=mtime, imported_from="v1"))
    conv.end_turn()
    return V1Chat(conv.records, skipped)


def read_v1(path: Path) -> V1Chat:
    stat = path.stat()
    return convert_v1(path.read_bytes(), datetime.fromtimestamp(stat.st_mtime, UTC))


def import_v1(root: Path, session_id: str) -> V1Chat | None:
    """Turn ``root/<id>.jsonl`` into the folder ``root/<id>/``; None if another process did."""
    chat = read_v1(root / f"{session_id}.jsonl")
    tmp = root / f".import-{session_id}-{secrets.token_hex(4)}"
    try:
        tmp.mkdir(0o700)
        (tmp / "agents").mkdir(0o700)
        (tmp / "artifacts").mkdir(0o700)
        log = b"".join(record_line(r) + b"\n" for r in chat.records)
        write_private(tmp / "log.jsonl", log)
        write_meta(tmp / "meta.json", meta_from_state(session_id, replay(chat.records), len(log)))
        tmp.rename(root / session_id)
    except OSError:
        if (root / session_id).is_dir():
            return None
        raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return chat
