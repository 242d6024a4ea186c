"""TrustStore: exact folders, resolved paths, atomic writes, concurrent writers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from zengine_jupyter.config import TrustStore
from zengine_jupyter.protocol import TrustStoreError


def test_trust_is_per_folder_exactly(tmp_path: Path, store: TrustStore, zengine_home: Path) -> None:
    app = tmp_path / "app"
    (app / "sub").mkdir(parents=True)
    worktree = tmp_path / "app-wt"
    worktree.mkdir()
    assert store.path == zengine_home / "trust.json"
    entry = store.trust(app)
    assert entry.path == str(app.resolve())
    assert store.is_trusted(app)
    assert not store.is_trusted(app / "sub")
    assert not store.is_trusted(worktree)
    assert not store.is_trusted(tmp_path)


def test_two_spellings_of_one_folder_are_one_entry(tmp_path: Path, store: TrustStore) -> None:
    app = tmp_path / "app"
    app.mkdir()
    link = tmp_path / "link"
    link.symlink_to(app)
    first = store.trust(app)
    assert store.trust(link) == first
    assert store.trust(tmp_path / "app" / ".." / "app") == first
    assert len(store.entries()) == 1
    assert store.is_trusted(link)


def test_revoke_and_list(tmp_path: Path, store: TrustStore) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    store.trust(a)
    store.trust(b)
    assert [e.path for e in store.entries()] == [str(a), str(b)]
    assert store.revoke(a) is True
    assert store.revoke(a) is False
    assert [e.path for e in store.entries()] == [str(b)]
    assert not store.is_trusted(a)
    on_disk = json.loads(store.path.read_text())
    assert on_disk["version"] == 1
    assert [f["path"] for f in on_disk["folders"]] == [str(b)]
    leftovers = [p.name for p in store.path.parent.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


def test_a_file_is_not_a_folder_to_trust(tmp_path: Path, store: TrustStore) -> None:
    (tmp_path / "f").write_text("x")
    with pytest.raises(TrustStoreError, match="not a folder"):
        store.trust(tmp_path / "f")


def test_a_damaged_file_is_reported_and_never_overwritten(
    tmp_path: Path, store: TrustStore
) -> None:
    store.path.write_text('{"version": 1, "folders": [{"path": 3}]}')
    with pytest.raises(TrustStoreError, match="damaged") as caught:
        store.is_trusted(tmp_path)
    assert caught.value.hint
    assert "delete" in caught.value.hint
    with pytest.raises(TrustStoreError):
        store.trust(tmp_path)
    assert store.path.read_text() == '{"version": 1, "folders": [{"path": 3}]}'


def test_concurrent_writers_lose_no_entry(tmp_path: Path, store: TrustStore) -> None:
    folders = [tmp_path / f"p{i}" for i in range(4)]
    for folder in folders:
        folder.mkdir()
    code = (
        "import sys; from zengine_jupyter.config import TrustStore; TrustStore().trust(sys.argv[1])"
    )
    procs = [subprocess.Popen([sys.executable, "-c", code, str(f)]) for f in folders]
    assert [p.wait(timeout=60) for p in procs] == [0] * len(folders)
    assert sorted(e.path for e in store.entries()) == sorted(str(f) for f in folders)
