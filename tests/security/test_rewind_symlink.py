"""Rewind through a directory symlink planted in the project (issue 18, "to examine")."""

from __future__ import annotations

from pathlib import Path

import pytest

from zengine_jupyter.host.checkpoint import ShadowRepository, restore_code
from zengine_jupyter.protocol import CheckpointError, CheckpointInfo
from zengine_jupyter.testing.components import require_component

FILES = 30


@pytest.fixture
def shadow(tmp_path: Path, zengine_home: Path) -> ShadowRepository:
    root = tmp_path / "project"
    (root / "data").mkdir(parents=True)
    return ShadowRepository(root, zengine_home, git=require_component("git"))


def outside_state(outside: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(outside.iterdir())}


async def test_a_planted_directory_symlink_is_replaced_not_followed(
    shadow: ShadowRepository, tmp_path: Path
) -> None:
    """Attack: the snapshot has ``data/x.csv``; later a sandboxed command replaces the folder
    ``data`` by a symlink to ``/outside``. Rewind must put ``data/x.csv`` back inside the
    project (a real folder again) and never write or delete anything in ``/outside``."""
    root = shadow.root
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "y.csv").write_text("theirs")
    (root / "data" / "x.csv").write_text("1,2\n")
    (root / "data" / "y.csv").write_text("mine\n")
    first = await shadow.snapshot("before")
    assert isinstance(first, CheckpointInfo)
    for name in ("x.csv", "y.csv"):
        (root / "data" / name).unlink()
    (root / "data").rmdir()
    (root / "data").symlink_to(outside)
    result = await restore_code(shadow, first.id)
    assert not (root / "data").is_symlink()
    assert (root / "data" / "x.csv").read_text() == "1,2\n"
    assert (root / "data" / "y.csv").read_text() == "mine\n"
    assert outside_state(outside) == {"y.csv": "theirs"}
    assert {"data/x.csv", "data/y.csv"} <= set(result.restored)


async def test_a_folder_swapped_for_a_symlink_after_the_safety_snapshot(
    shadow: ShadowRepository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Attack: a background sandboxed command swaps the project folder ``data`` for a symlink
    to an outside folder at the worst moment: just after rewind's safety snapshot, before it
    removes the files created since and writes the changed ones back. On main the removals
    followed the symlink and deleted the outside files of the same names. Nothing outside
    may be written, changed or deleted; ``data`` comes back as a real folder."""
    root = shadow.root
    outside = tmp_path / "outside"
    outside.mkdir()
    for i in range(FILES):
        (root / "data" / f"x{i}.csv").write_text(f"{i}\n")
        (outside / f"x{i}.csv").write_text("decoy\n")
        (outside / f"new{i}.csv").write_text("decoy\n")
    first = await shadow.snapshot("before")
    assert isinstance(first, CheckpointInfo)
    before = outside_state(outside)
    for i in range(FILES):  # what "the agent" did since the snapshot
        (root / "data" / f"x{i}.csv").write_text("changed\n")
        (root / "data" / f"new{i}.csv").write_text("new\n")

    real_snapshot = shadow.snapshot_locked

    async def snapshot_then_swap(message: str) -> object:
        done = await real_snapshot(message)
        if message.startswith("before rewind"):
            (root / "data").rename(root / "data.parked")
            (root / "data").symlink_to(outside)
        return done

    monkeypatch.setattr(shadow, "snapshot_locked", snapshot_then_swap)
    try:
        result = await restore_code(shadow, first.id)
    except CheckpointError:
        result = None  # refusing is fine; following the symlink is not
    assert outside_state(outside) == before
    if result is not None:
        assert not (root / "data").is_symlink()
        assert (root / "data" / "x0.csv").read_text() == "0\n"
