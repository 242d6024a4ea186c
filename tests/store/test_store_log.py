"""SessionStore basics: layout, append, torn-tail repair, the writer lock, artifacts, agents."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

import pytest

from zengine_jupyter.protocol import (
    MessageRecord,
    SessionLockedError,
    SessionNotFoundError,
    StoreError,
    TurnStartRecord,
    UsageRecord,
)
from zengine_jupyter.store import SessionStore
from zengine_jupyter.testing import python_child

if TYPE_CHECKING:
    from pathlib import Path


def test_store_defaults_to_the_data_folder(zengine_home: Path) -> None:
    with SessionStore().create(project="/work/p") as writer:
        writer.append(MessageRecord(role="user", text="hello"))
    folder = zengine_home / "sessions" / writer.id
    assert {p.name for p in folder.iterdir()} == {
        "log.jsonl",
        "meta.json",
        "agents",
        "artifacts",
        "lock",
    }
    lines = (folder / "log.jsonl").read_bytes().splitlines()
    assert [json.loads(line)["kind"] for line in lines] == ["session", "message"]
    assert json.loads(lines[0])["project"] == "/work/p"


def test_append_is_one_line_on_disk_before_it_returns(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    writer = store.create()
    record = MessageRecord(role="user", text="line one\nline two \u2028 é")
    writer.append(record)
    # another reader sees it at once, without any close or flush
    data = (tmp_path / writer.id / "log.jsonl").read_bytes()
    assert data.endswith(b"\n")
    assert data.count(b"\n") == 2
    assert store.read(writer.id).state.transcript[-1] == record
    writer.close()


def test_a_torn_tail_is_cut_and_kept_under_artifacts(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    with store.create() as writer:
        writer.append(MessageRecord(role="user", text="kept"))
    log = tmp_path / writer.id / "log.jsonl"
    before = log.read_bytes()
    torn = b'{"id":"x","kind":"message","role":"user","te'
    with log.open("ab") as f:
        f.write(torn)
    # a reader ignores it and changes nothing
    snap = store.read(writer.id)
    assert snap.partial_tail_bytes == len(torn)
    assert log.read_bytes() == before + torn
    # the writer cuts it and keeps the bytes
    with store.open(writer.id) as again:
        assert again.report.tail.cut_bytes == len(torn)
        assert again.report.tail.artifact is not None
        assert (again.folder / again.report.tail.artifact).read_bytes() == torn
        assert log.read_bytes() == before
        again.append(MessageRecord(role="user", text="after"))
    texts = [r.text for r in store.read(writer.id).state.transcript if isinstance(r, MessageRecord)]
    assert texts == ["kept", "after"]


def test_a_whole_record_missing_only_its_newline_is_completed(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    store.create(session_id="c1").close()
    log = tmp_path / "c1" / "log.jsonl"
    record = MessageRecord(role="user", text="whole")
    with log.open("ab") as f:
        f.write(record.model_dump_json().encode())
    with store.open("c1") as writer:
        assert writer.report.tail.completed
        assert writer.report.tail.cut_bytes == 0
        writer.append(MessageRecord(role="user", text="next"))
    texts = [r.text for r in store.read("c1").state.transcript if isinstance(r, MessageRecord)]
    assert texts == ["whole", "next"]


def test_second_writer_in_this_process_gets_a_clear_error(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    writer = store.create(session_id="c1")
    with pytest.raises(SessionLockedError, match="already open for writing by this process") as err:
        store.open("c1")
    assert err.value.holder_pid == os.getpid()
    assert err.value.hint
    # readers always work
    assert store.read("c1").state.records == 1
    writer.close()
    store.open("c1").close()  # released on close


def test_second_writer_in_another_process_gets_a_clear_error(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    store.create(session_id="c1").close()
    code = (
        "import sys; from pathlib import Path; from zengine_jupyter.store import SessionStore\n"
        "w = SessionStore(Path(sys.argv[1])).open('c1'); print('open', flush=True)\n"
        "sys.stdin.read(); w.close()"
    )
    with python_child(code, str(tmp_path), ready="open") as holder:
        with pytest.raises(SessionLockedError, match=f"process {holder.pid}") as err:
            store.open("c1")
        assert err.value.holder_pid == holder.pid
        assert store.read("c1").state.records == 1
    store.open("c1").close()  # the lock died with the holder's handle


def test_unknown_and_bad_ids(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    with pytest.raises(SessionNotFoundError, match="no chat 'nope'"):
        store.open("nope")
    for bad in ("../etc", "a/b", "", ".hidden", "x.jsonl"):
        with pytest.raises(SessionNotFoundError, match="not a valid"):
            store.read(bad)


def test_closed_writer_refuses_appends_and_close_is_idempotent(tmp_path: Path) -> None:
    writer = SessionStore(tmp_path).create()
    writer.close()
    writer.close()
    with pytest.raises(StoreError, match="is closed"):
        writer.append(TurnStartRecord())


async def test_async_context_manager_and_agent_logs(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    async with store.create(session_id="c1") as writer:
        writer.append_agent("explore-1", MessageRecord(role="user", text="look around"))
        writer.append_agent("explore-1", UsageRecord(cost_usd=0.25))
        path = writer.save_artifact("bash output.txt", b"long output")
        assert path == "artifacts/bash_output.txt"
        assert writer.save_artifact("bash output.txt", b"2") == "artifacts/2-bash_output.txt"
    agent = store.read_agent("c1", "explore-1")
    assert [r.kind for r in agent] == ["message", "usage"]
    assert (tmp_path / "c1" / path).read_bytes() == b"long output"


def test_a_line_without_id_ts_or_timezone_is_damaged_not_defaulted(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    store.create(session_id="c1").close()
    with (tmp_path / "c1" / "log.jsonl").open("ab") as f:
        f.write(b'{"kind": "title", "title": "no id or ts"}\n')
        f.write(b'{"id": "a", "ts": "2026-01-01T00:00:00", "kind": "title", "title": "naive"}\n')
        f.write(b'{"id": "b", "ts": "2026-01-01T00:00:00Z", "kind": "title", "title": "ok"}\n')
    snap = store.read("c1")
    assert [(s.line, s.reason) for s in snap.skipped] == [(2, "damaged"), (3, "damaged")]
    assert snap.state.title == "ok"
    assert [m.title for m in store.list()] == ["ok"]


def test_a_turn_start_whose_turn_id_key_is_damaged_is_skipped_not_invented(
    tmp_path: Path,
) -> None:
    """A flipped byte in the ``turn_id`` key left valid JSON; the reader then filled in a new
    random turn id on every read, so two reads of one log disagreed (found by the fuzz test)."""
    store = SessionStore(tmp_path)
    store.create(session_id="c1").close()
    with (tmp_path / "c1" / "log.jsonl").open("ab") as f:
        f.write(b'{"id": "t1", "ts": "2026-01-01T00:00:00Z", "kind": "turn_start", ')
        f.write(b'"tusn_id": "x"}\n')
    first, second = store.read("c1"), store.read("c1")
    assert [s.reason for s in first.skipped] == ["damaged"]
    assert first.state.transcript == second.state.transcript


def test_ids_are_never_reused_and_odd_folders_are_not_listed(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    store.create(session_id="c1").close()
    with pytest.raises(StoreError, match="already exists"):
        store.create(session_id="c1")
    (tmp_path / "not a chat").mkdir()
    (tmp_path / ".import-c9-1234").mkdir()
    (tmp_path / "notes.txt").write_text("x")
    assert [m.id for m in store.list()] == ["c1"]


async def test_async_open_and_read_run_off_the_loop(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    (tmp_path / "old.jsonl").write_bytes(b'{"type": "user", "content": "hi"}\n')
    with pytest.raises(StoreError, match="v1 chat 'old' exists"):
        store.create(session_id="old")
    writer = await store.aopen("old")
    assert writer.report.imported_v1
    writer.append(MessageRecord(role="user", text="again"))
    await writer.aclose()
    snap = await store.aread("old")
    assert [r.text for r in snap.state.transcript if isinstance(r, MessageRecord)] == [
        "hi",
        "again",
    ]
