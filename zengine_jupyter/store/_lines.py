"""Reading a JSONL log: one record per line, and a damaged line costs only itself.

A log is read as bytes and split on ``\\n``. Each complete line is validated as a
:data:`LogRecord`; a line that is blank, not UTF-8, not JSON, or JSON of the wrong
shape is *skipped* and reported with its line number; a line of a ``kind`` this
version does not know is kept as an :class:`UnknownRecord`. A record whose ``id`` an
earlier line already had (a line written twice) is skipped as a ``duplicate``: replaying it
would count its usage twice or show its message twice. Bytes after the last
newline are the *tail*: a half-written line when a writer was killed. What to do with
it (cut or complete) is the writer's decision (``_writer.py``); a reader ignores it.

Text that UTF-8 cannot encode (a lone surrogate from a model's JSON escape, a file name in
surrogateescape) is written as JSON escapes (``record_line``) and read back exactly: the fast
reader refuses such escapes, so those lines alone take the ``json`` module's path.
"""

from __future__ import annotations

import contextlib
import gc
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, get_args

from pydantic import ConfigDict, TypeAdapter, ValidationError
from pydantic_core import PydanticSerializationError, SchemaValidator

from zengine_jupyter.protocol import LogRecord, UnknownRecord

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

__all__ = [
    "LOG_RECORD",
    "LogScan",
    "SkippedLine",
    "gc_paused",
    "parse_line",
    "record_line",
    "scan_bytes",
    "scan_file",
    "validate_line",
]

LOG_RECORD: TypeAdapter[LogRecord] = TypeAdapter(LogRecord, config=ConfigDict(defer_build=True))
"""Validates and serialises any :data:`LogRecord` (built on first use: a new chat never
reads one)."""

_KNOWN_KINDS: frozenset[str] = frozenset(
    get_args(cls.model_fields["kind"].annotation)[0] for cls in get_args(get_args(LogRecord)[0])
)

SkipReason = Literal["damaged", "unknown", "blank", "duplicate"]


@dataclass(frozen=True)
class SkippedLine:
    """A line replay did not use: its 1-based number, why, and a short detail."""

    line: int
    reason: SkipReason
    detail: str


@dataclass(frozen=True)
class LogScan:
    """Everything read from one log file."""

    records: list[LogRecord]
    unknown: list[UnknownRecord]
    skipped: list[SkippedLine]
    tail: bytes
    """Bytes after the last newline (a partial line), not part of ``records``."""
    size: int
    """Bytes of complete lines: where ``tail`` starts."""
    first_lines: dict[str, int] = field(default_factory=dict)
    """Each record id and the line it was first read on: ``records``' ids, once each (a
    replay takes them as they are instead of collecting them again)."""

    @property
    def damaged(self) -> int:
        return sum(1 for s in self.skipped if s.reason == "damaged")


def record_line(record: LogRecord) -> bytes:
    """``record`` as one JSON line (no newline). Text UTF-8 cannot encode is kept as JSON
    escapes (``"\\ud800"``), which the readers here decode back to the same text."""
    try:
        return type(record).__pydantic_serializer__.to_json(record)
    except PydanticSerializationError:
        data = record.model_dump(mode="json")
        return json.dumps(data, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def _escaped(line: bytes, error: ValidationError) -> LogRecord | None:
    """The record on a line the fast reader refused as JSON, read by ``json`` (which decodes
    lone-surrogate escapes); None if it is not one either."""
    if error.errors(include_url=False)[0]["type"] != "json_invalid":
        return None
    try:
        return LOG_RECORD.validate_python(json.loads(line))
    except (ValueError, RecursionError):  # ValidationError is a ValueError
        return None


def _classify(line: bytes, number: int, error: ValidationError) -> UnknownRecord | SkippedLine:
    if not line.strip():
        return SkippedLine(number, "blank", "blank line")
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return SkippedLine(number, "damaged", "not valid UTF-8 JSON")
    if not isinstance(value, dict):
        return SkippedLine(number, "damaged", f"a JSON {type(value).__name__}, not a record")
    kind = value.get("kind")
    if isinstance(kind, str) and kind not in _KNOWN_KINDS:
        raw = line.decode("utf-8", errors="replace")
        return UnknownRecord(kind=kind, raw=raw, line=number)
    first = error.errors(include_url=False)[0]
    where = ".".join(str(p) for p in first["loc"]) or "record"
    return SkippedLine(number, "damaged", f"{where}: {first['msg']}"[:200])


_STAMPED = frozenset({"id", "ts"})
_MISSING = "id, ts or another id: a record in a log must carry every id it was written with"
_REQUIRED: dict[type, frozenset[str]] = {}


def _required(kind: type[LogRecord]) -> frozenset[str]:
    """``id``, ``ts`` and any other id a record type fills in by default (``turn_id`` of a
    turn start): read from a log, each must be there, or every read would invent a new one."""
    found = _REQUIRED.get(kind)
    if found is None:
        extra = {
            name for name, field in kind.model_fields.items()
            if field.default_factory is not None and name.endswith("_id")
        }  # fmt: skip
        found = _REQUIRED[kind] = _STAMPED | extra
    return found


def _stamped(record: LogRecord) -> bool:
    return record.__pydantic_fields_set__ >= _required(type(record))


def validate_line(line: bytes) -> LogRecord:
    """The record on ``line``; ``ValueError`` if it is not one.

    ``id`` and ``ts`` have defaults for building records in code, but a line without
    them is damaged: a default would make each read of the log differ.
    """
    try:
        record = LOG_RECORD.validate_json(line)
    except ValidationError as exc:
        escaped = _escaped(line, exc)
        if escaped is None:
            raise
        record = escaped
    if not _stamped(record):
        raise ValueError(_MISSING)
    return record


def parse_line(line: bytes, number: int) -> LogRecord | UnknownRecord | SkippedLine:
    """One line (without its newline) as a record, an unknown record, or a skipped line."""
    try:
        record = LOG_RECORD.validate_json(line)
    except ValidationError as exc:
        escaped = _escaped(line, exc)
        if escaped is None:
            return _classify(line, number, exc)
        record = escaped
    if not _stamped(record):
        return SkippedLine(number, "damaged", _MISSING)
    return record


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Hold off the cyclic garbage collector while building many long-lived objects.

    Each record is a GC-tracked object that survives, so with the collector on, a
    100,000-record log triggers ever larger collections (2-3x the parse time).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            # Move what was just built to the oldest generation (two O(1) list splices)
            # so the next young collection does not walk every new record. Cyclic
            # garbage made meanwhile is collected by the next full collection instead.
            gc.freeze()
            gc.unfreeze()
            gc.enable()


def scan_bytes(data: bytes) -> LogScan:
    """Split ``data`` into records; never raises on content."""
    with gc_paused():
        return _scan(data)


def _scan(data: bytes) -> LogScan:
    size = data.rfind(b"\n") + 1
    lines = data[:size].split(b"\n")
    lines.pop()  # the empty string after the final newline
    records: list[LogRecord] = []
    unknown: list[UnknownRecord] = []
    skipped: list[SkippedLine] = []
    append = records.append
    validate = _core_validate_json()
    stamped = _stamped
    required = _REQUIRED
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, 1):
        try:
            record = validate(line)
            needed = required.get(type(record))  # _stamped, inlined: two calls a line less
            if needed is None:
                needed = _required(type(record))
            if record.__pydantic_fields_set__ >= needed:
                first = seen.setdefault(record.id, number)
                if first == number:
                    append(record)
                else:
                    skipped.append(_duplicate(number, first))
            else:
                skipped.append(SkippedLine(number, "damaged", _MISSING))
        except ValidationError as exc:
            escaped = _escaped(line, exc)
            if escaped is not None and stamped(escaped):
                append(escaped)
                continue
            outcome = _classify(line, number, exc)
            if isinstance(outcome, UnknownRecord):
                unknown.append(outcome)
                skipped.append(SkippedLine(number, "unknown", f"unknown kind {outcome.kind!r}"))
            else:
                skipped.append(outcome)
    return LogScan(records, unknown, skipped, data[size:], size, seen)


def _core_validate_json() -> Callable[[bytes], LogRecord]:
    """``LOG_RECORD``'s core validator: the adapter's ``validate_json`` is a Python wrapper
    around it, a frame more on each of a log's lines."""
    LOG_RECORD.rebuild()  # built on first use (defer_build): build it now if not yet
    validator = LOG_RECORD.validator
    if isinstance(validator, SchemaValidator):
        return validator.validate_json
    return LOG_RECORD.validate_json  # a plugin's validator: through the adapter


def _duplicate(number: int, first: int) -> SkippedLine:
    return SkippedLine(number, "duplicate", f"the same record id as line {first}")


def scan_file(path: Path) -> LogScan:
    """Read and scan a log file (a missing file reads as empty)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        data = b""
    return scan_bytes(data)
