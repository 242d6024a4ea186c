"""Issue 19.8: a kill can leave ``.meta.json.<hex>.tmp`` files; reopening a chat removes them.

Only the writer lock's holder writes in a chat's folder, so the files are removed right after
the lock is taken: whoever made one is dead or done. A live writer's file is safe because a
second opener never gets the lock, and readers never remove anything.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

import pytest

from zengine_jupyter.protocol import SessionLockedError, SessionMeta
from zengine_jupyter.store import SessionStore
from zengine_jupyter.store._meta import check_meta, read_meta
from zengine_jupyter.testing import python_child
from zengine_jupyter.testing.store_kill import run_meta_kill_rounds

if TYPE_CHECKING:
    from pathlib import Path

KILLS = 40


def test_temp_files_a_kill_left_are_removed_on_reopen(tmp_path: Path) -> None:
    """Attack: SIGKILL during meta.json's atomic rewrite leaves its temp file forever."""
    rounds = run_meta_kill_rounds(tmp_path, KILLS, seed=20261201, min_cut=3)
    assert all(r.killed_by_sigkill for r in rounds)
    cut = [r for r in rounds if r.temps_left]
    print(f"\nmeta kill: {len(rounds)} kills, {len(cut)} left a temp file, all removed on reopen")
    assert len(cut) >= 3, "too few kills landed inside an atomic write"
    for n, r in enumerate(rounds):
        assert r.meta_valid_after_kill, n  # the rename is atomic: old or new meta, never half
        assert r.removed == r.temps_left, n
        assert r.temps_after_reopen == (), n
        assert r.meta_current_after_reopen, n


def test_only_the_stores_own_stale_temp_names_are_removed(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    store.create(session_id="c1").close()
    folder = store.folder("c1")
    meta_before = read_meta(folder / "meta.json")
    stale = [folder / ".meta.json.0123abcd.tmp", folder / "artifacts" / ".out.log.89abcdef.tmp"]
    stale[0].write_bytes(b"")  # what a kill right after the create leaves
    stale[1].write_bytes(b"half of an artif")
    keep = [
        folder / "notes.tmp",
        folder / ".meta.json.tmp",
        folder / ".meta.json.NOTHEX12.tmp",
        folder / "artifacts" / "bash-0001.log",
        folder / "agents" / ".a1.jsonl.0123abcd.tmp",  # not where the store writes temps
    ]
    for path in keep:
        path.write_bytes(b"x")
    (folder / ".dir.0123abcd.tmp").mkdir()  # a directory is never removed
    with store.open("c1") as writer:
        assert writer.report.removed_temps == (
            ".meta.json.0123abcd.tmp",
            "artifacts/.out.log.89abcdef.tmp",
        )
        assert not writer.report.clean
    assert not any(p.exists() for p in stale)
    assert all(p.exists() for p in keep)
    assert (folder / ".dir.0123abcd.tmp").is_dir()
    assert read_meta(folder / "meta.json") == meta_before
    with store.open("c1") as writer:  # nothing left to remove
        assert writer.report.removed_temps == ()
        assert writer.report.clean


_LIVE_WRITER = textwrap.dedent(
    """
    import os, sys
    from pathlib import Path
    from zengine_jupyter.store import SessionStore
    writer = SessionStore(Path(sys.argv[1])).open("c1")
    tmp = writer.folder / ".meta.json.feedbeef.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    os.write(fd, b'{"id": "c1", "title": "half wr')  # an atomic write in progress
    print("ready", flush=True)
    sys.stdin.read()
    """
)


def test_a_live_writers_temp_file_is_left_alone(tmp_path: Path) -> None:
    """Attack: a reopen (or a reader) deletes the temp file another live writer is writing."""
    store = SessionStore(tmp_path)
    store.create(session_id="c1").close()
    tmp = store.folder("c1") / ".meta.json.feedbeef.tmp"
    with python_child(_LIVE_WRITER, str(tmp_path), ready="ready", kill=True) as child:
        with pytest.raises(SessionLockedError, match=f"process {child.pid}"):
            store.open("c1")
        store.read("c1")
        store.list()
        assert tmp.exists(), "a live writer's temp file was removed"
    with store.open("c1") as writer:  # its writer is dead now: the file is stale
        assert writer.report.removed_temps == (".meta.json.feedbeef.tmp",)
        assert check_meta(writer.folder / "meta.json", writer.meta()) is None
    assert not tmp.exists()
    assert isinstance(read_meta(store.folder("c1") / "meta.json"), SessionMeta)


def test_a_closed_writer_no_longer_writes_in_the_folder(tmp_path: Path) -> None:
    """What makes the sweep safe: only the lock's holder writes there."""
    store = SessionStore(tmp_path)
    writer = store.create(session_id="c1")
    writer.close()
    before = (writer.folder / "meta.json").read_bytes()
    assert writer.write_meta().id == "c1"  # returns the meta, writes nothing
    assert (writer.folder / "meta.json").read_bytes() == before
    with pytest.raises(Exception, match="closed"):
        writer.save_artifact("late.log", b"x")
