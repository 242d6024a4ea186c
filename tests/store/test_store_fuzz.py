"""Acceptance 2: corrupted logs. Opening and replay never raise; a damaged line costs that line."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zengine_jupyter.engine import build_request, check_request, repair_on_resume
from zengine_jupyter.protocol import LogRecord, SessionRecord
from zengine_jupyter.store import SessionStore, validate_line
from zengine_jupyter.testing.records import log_records

if TYPE_CHECKING:
    from collections.abc import Iterator

# How each line is damaged. "must_skip" corruptions can never leave a valid record.
CORRUPTIONS = {
    "intact": "keep",
    "flip": "either",  # a flipped byte inside a string may still be a valid record
    "truncate": "must_skip",
    "garbage": "must_skip",
    "blank": "must_skip",
    "invalid_utf8": "must_skip",
    "unknown_kind": "must_skip",
    "wrong_shape": "must_skip",
}


def _corrupt(line: bytes, how: str, data: st.DataObject) -> bytes:
    if how == "flip":
        at = data.draw(st.integers(0, len(line) - 1))
        mask = data.draw(st.integers(1, 255).filter(lambda m: line[at] ^ m != 0x0A))
        return line[:at] + bytes([line[at] ^ mask]) + line[at + 1 :]
    if how == "truncate":  # a strict prefix of a JSON object is never a JSON object
        return line[: data.draw(st.integers(1, len(line) - 1))]
    if how == "garbage":
        junk = data.draw(st.binary(min_size=1, max_size=40))
        return junk.replace(b"\n", b"?").replace(b"kind", b"k?nd")
    if how == "blank":
        return data.draw(st.sampled_from([b"", b" ", b"\t  ", b"\r"]))
    if how == "invalid_utf8":
        at = data.draw(st.integers(0, len(line)))
        return line[:at] + b"\xff\xfe" + line[at:]
    obj: dict[str, Any] = json.loads(line)
    if how == "unknown_kind":
        obj["kind"] = "from_the_future"
    else:  # wrong_shape: a known kind whose fields have the wrong types
        obj = {"kind": obj["kind"], "id": 7, "ts": "yesterday", "role": 3, "turn_id": []}
    return json.dumps(obj).encode()


def _dump(record: LogRecord) -> bytes:
    return type(record).__pydantic_serializer__.to_json(record)


@pytest.fixture(scope="module")
def tally() -> Iterator[dict[str, int]]:
    """Counts over every generated log, printed once (run with ``-s`` to read them)."""
    counts = {"logs": 0, "lines": 0, "corrupted": 0, "intact": 0, "lost": 0}
    yield counts
    print(
        f"\ndamaged logs: {counts['logs']} logs, {counts['lines']} lines, {counts['corrupted']} "
        f"corrupted, {counts['intact']} intact records, lost: {counts['lost']}"
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=log_records, data=st.data())
def test_corrupted_logs_cost_exactly_the_damaged_lines(
    tally: dict[str, int], records: list[LogRecord], data: st.DataObject
) -> None:
    records = [SessionRecord(), *records]
    hows = [data.draw(st.sampled_from(sorted(CORRUPTIONS))) for _ in records]
    lines = [
        _dump(r) if how == "intact" else _corrupt(_dump(r), how, data)
        for r, how in zip(records, hows, strict=True)
    ]
    torn_tail = data.draw(st.booleans())
    tail = b'{"id":"t","kind":"message","role":"us' if torn_tail else b""
    root = Path(tempfile.mkdtemp())
    try:
        (root / "c1").mkdir()
        (root / "c1" / "log.jsonl").write_bytes(b"".join(line + b"\n" for line in lines) + tail)
        store = SessionStore(root)

        snap = store.read("c1")  # a reader: never raises, changes nothing
        assert snap.partial_tail_bytes == len(tail)
        skipped = {s.line: s for s in snap.skipped}
        intact = [n for n, how in enumerate(hows, 1) if CORRUPTIONS[how] == "keep"]
        tally["logs"] += 1
        tally["lines"] += len(lines)
        tally["corrupted"] += len(lines) - len(intact)
        tally["intact"] += len(intact)
        tally["lost"] += sum(n in skipped for n in intact)
        for number, how in enumerate(hows, 1):
            if CORRUPTIONS[how] == "keep":
                assert number not in skipped
            elif CORRUPTIONS[how] == "must_skip":
                assert number in skipped, (how, lines[number - 1])
                expected = {"unknown_kind": "unknown", "blank": "blank"}.get(how, "damaged")
                if not lines[number - 1].strip():  # whitespace-only garbage is a blank line
                    expected = "blank"
                assert skipped[number].reason == expected, (how, skipped[number])
        # every line that was not skipped gave exactly its own record, in order
        used = [n for n in range(1, len(lines) + 1) if n not in skipped]
        assert snap.state.records == len(used)

        with store.open("c1") as writer:  # the writer: repairs the tail, never raises
            assert writer.report.tail.cut_bytes == len(tail)
            assert [s.line for s in writer.report.skipped] == sorted(skipped)
            kept = [validate_line(lines[n - 1]) for n in used]
            assert [r for r in kept if r.kind != "usage"] == [
                r for r in writer.state().transcript
            ] or any(r.kind == "rewind" for r in kept)
            for n, record in zip(used, kept, strict=True):
                if CORRUPTIONS[hows[n - 1]] == "keep":
                    assert record == records[n - 1]
            repair_on_resume(writer)
            assert not writer.state().needs_repair
            assert check_request(build_request(writer.state().working_set)) == []
        assert store.read("c1").partial_tail_bytes == 0
    finally:
        shutil.rmtree(root)
