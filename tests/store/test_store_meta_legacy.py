"""Acceptance 5: meta.json is rebuilt with the same values; a v1 import leaves the file intact."""

from __future__ import annotations

import hashlib
import json
import os
from typing import TYPE_CHECKING

import pytest

from zengine_jupyter.protocol import (
    MessageRecord,
    ModelChangeRecord,
    SessionMeta,
    TitleRecord,
    ToolResultRecord,
    TurnEndRecord,
    UsageRecord,
)
from zengine_jupyter.store import SessionStore

if TYPE_CHECKING:
    from pathlib import Path


def _chat(store: SessionStore) -> SessionMeta:
    with store.create(project="/p", session_id="c1") as writer:
        writer.append(ModelChangeRecord(model="claude-sonnet-4-5"))
        writer.append(MessageRecord(role="user", text="Fix the failing test\nin foo.py"))
        writer.append(MessageRecord(role="assistant", text="Done."))
        writer.append(UsageRecord(input_tokens=10, cost_usd=0.0125))
        writer.append(UsageRecord(input_tokens=10, cost_usd=None))
    return SessionMeta.model_validate_json((store.root / "c1" / "meta.json").read_bytes())


def test_meta_holds_what_the_chat_list_needs(tmp_path: Path) -> None:
    meta = _chat(SessionStore(tmp_path))
    assert meta.title == "Fix the failing test"
    assert (meta.message_count, meta.cost_usd, meta.unpriced_requests) == (2, 0.0125, 1)
    assert (meta.model, meta.project, meta.format) == ("claude-sonnet-4-5", "/p", "v2")
    assert meta.created <= meta.updated
    assert meta.log_size == (tmp_path / "c1" / "log.jsonl").stat().st_size


@pytest.mark.parametrize(
    "damage", ["delete", b"", b"{not json", b'{"id": "c1"}', b"\xff\xfe", b"[1, 2]"]
)
def test_missing_or_garbled_meta_is_rebuilt_with_the_same_values(
    tmp_path: Path, damage: str | bytes
) -> None:
    store = SessionStore(tmp_path)
    original = _chat(store)
    path = tmp_path / "c1" / "meta.json"
    if damage == "delete":
        path.unlink()
    else:
        assert isinstance(damage, bytes)
        path.write_bytes(damage)
    # the list never trusts a bad meta.json ...
    assert store.list() == [original]
    # ... and opening the chat rewrites it
    with store.open("c1") as writer:
        assert writer.report.meta == ("missing" if damage == "delete" else "damaged")
    assert SessionMeta.model_validate_json(path.read_bytes()) == original


def test_stale_meta_after_a_crash_is_noticed_and_rewritten(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    _chat(store)
    writer = store.open("c1")
    writer.append(TitleRecord(title="Renamed"))
    # simulate a crash: the lock dies with the process, meta.json is never rewritten
    writer._lock.release()  # type: ignore[union-attr]
    os.close(writer._fd)
    assert store.list()[0].title == "Renamed"  # size differs: the list replays the log
    with store.open("c1") as again:
        assert again.report.meta == "stale"
    assert json.loads((tmp_path / "c1" / "meta.json").read_bytes())["title"] == "Renamed"


V1 = b"\n".join(
    [
        b'{"type": "session", "title": "Old chat", "model": "gpt-4.1", "project": "/old",'
        b' "created": "2025-03-01T10:00:00Z"}',
        b'{"type": "user", "content": "list the files", "ts": "2025-03-01T10:00:05Z"}',
        b'{"type": "assistant", "content": "", "tool_calls": [{"id": "t1", "name": "Bash",'
        b' "input": {"command": "ls"}}]}',
        b'{"type": "tool_result", "tool_call_id": "t1", "content": "a.py\\nb.py"}',
        b'{"type": "assistant", "content": "Two files."}',
        b'{"type": "usage", "model": "gpt-4.1", "input_tokens": 50, "output_tokens": 5,'
        b' "cost_usd": 0.002}',
        b"this line is damaged",
        b'{"type": "user", "content": "thanks", "ts": 1740823300}',
        b"",
    ]
)


def test_v1_chat_is_listed_with_a_tag_and_imported_on_first_open(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    original = tmp_path / "old1.jsonl"
    original.write_bytes(V1)
    stat = original.stat()
    digest = hashlib.sha256(V1).hexdigest()

    [listed] = store.list()
    assert (listed.id, listed.format, listed.title) == ("old1", "v1", "Old chat")
    assert not (tmp_path / "old1").exists()  # listing does not import

    with store.open("old1") as writer:
        assert writer.report.imported_v1
        assert [s.line for s in writer.report.v1_skipped] == [7]
        state = writer.state()
    assert state.imported_from == "v1"
    assert state.cost_usd == 0.002
    assert state.model == "gpt-4.1"
    texts = [(r.role, r.text) for r in state.transcript if isinstance(r, MessageRecord)]
    assert texts == [
        ("user", "list the files"),
        ("assistant", ""),
        ("assistant", "Two files."),
        ("user", "thanks"),
    ]
    result = next(r for r in state.transcript if isinstance(r, ToolResultRecord))
    assert result.output == "a.py\nb.py"
    assert sum(isinstance(r, TurnEndRecord) for r in state.transcript) == 2

    # the original is byte-identical (and not even touched), and stays a v1 chat in the list
    assert hashlib.sha256(original.read_bytes()).hexdigest() == digest
    assert original.stat().st_mtime_ns == stat.st_mtime_ns
    [after] = store.list()
    assert (after.id, after.format, after.title) == ("old1", "v1", "Old chat")
    assert after.model_dump(exclude={"log_size"}) == listed.model_dump(exclude={"log_size"})
    with store.open("old1") as again:  # second open: no second import
        assert not again.report.imported_v1
