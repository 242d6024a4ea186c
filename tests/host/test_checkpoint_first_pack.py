"""The first snapshot writes its own pack and index (issue 25): git must agree with every byte."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

from zengine_jupyter.host.checkpoint import ShadowRepository
from zengine_jupyter.host.checkpoint._index import IndexEntry, index_bytes
from zengine_jupyter.host.checkpoint._packfile import PackWriter, blob_id, object_id
from zengine_jupyter.host.checkpoint._trees import write_trees
from zengine_jupyter.protocol import CheckpointInfo


def shadow_git(shadow: ShadowRepository, git: str, *args: str) -> str:
    env = {**os.environ, **shadow.env}
    argv = [git, "-c", f"core.excludesFile={shadow.paths.exclude_file}", *args]
    done = subprocess.run(
        argv, cwd=shadow.root, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def plain_git_tree(project: Path, git: str) -> str:
    """The tree a plain ``git add -A`` + ``write-tree`` gives the same files."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "GIT_DIR": f"{tmp}/g",
            "GIT_WORK_TREE": str(project),
            "GIT_INDEX_FILE": f"{tmp}/index",
            "GIT_CONFIG_GLOBAL": "/dev/null",
            "GIT_CONFIG_NOSYSTEM": "1",
        }
        subprocess.run([git, "init", "-q", "--bare", f"{tmp}/g"], check=True)
        subprocess.run([git, "add", "-A"], cwd=project, env=env, check=True)
        done = subprocess.run(
            [git, "write-tree"], cwd=project, env=env, capture_output=True, text=True, check=True
        )
        return done.stdout.strip()


def odd_project(project: Path) -> None:
    (project / ".gitignore").write_text("*.log\n")
    (project / "skip.log").write_text("ignored\n")
    (project / "empty.txt").write_bytes(b"")
    (project / "same-a.txt").write_text("twice\n")
    (project / "same-b.txt").write_text("twice\n")
    (project / "binary.bin").write_bytes(bytes(range(256)) * 300)
    (project / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (project / "run.sh").chmod(0o755)
    (project / "link").symlink_to("empty.txt")
    (project / "dangling").symlink_to("nowhere/at/all")
    deep = project / "a" / "b-c" / "d.e"
    deep.mkdir(parents=True)
    (deep / "ünïcode name.py").write_text("x = 'é'\n")
    (project / "a" / "b").mkdir()
    (project / "a" / "b" / "x").write_text("sorted apart from a/b-c and a/b.txt\n")
    (project / "a" / "b.txt").write_text("between a/b- and a/b/\n")
    (project / ("n" * 200 + ".txt")).write_text("a long name\n")


async def test_first_snapshot_matches_plain_git_and_leaves_a_clean_stat_cache(
    shadow: ShadowRepository, project: Path, git: str
) -> None:
    odd_project(project)
    info = await shadow.snapshot("first")
    assert isinstance(info, CheckpointInfo)
    tree = shadow_git(shadow, git, "rev-parse", f"{info.id}^{{tree}}").strip()
    assert tree == plain_git_tree(project, git)
    assert info.file_count == 12
    # git finds every object of the snapshot, and index-pack --verify re-hashes each one
    shadow_git(shadow, git, "rev-list", "--objects", "--missing=error", info.id)
    packs = list((shadow.paths.git_dir / "objects" / "pack").glob("*.pack"))
    assert len(packs) == 1
    shadow_git(shadow, git, "verify-pack", str(packs[0].with_suffix(".idx")))
    # the trees are in that pack too (the one loose object is the commit) and are the ones
    # git builds from the index written beside them
    loose = [f"{p.parent.name}{p.name}" for p in shadow.paths.git_dir.glob("objects/??/*")]
    assert [shadow_git(shadow, git, "cat-file", "-t", oid).strip() for oid in loose] == ["commit"]
    assert shadow_git(shadow, git, "write-tree").strip() == tree
    # the index's stat data is what git would have written: nothing looks modified
    assert shadow_git(shadow, git, "diff-files", "--name-only") == ""
    assert shadow_git(shadow, git, "status", "--porcelain", "-uall") == ""
    # and the next snapshot of unchanged files is the same checkpoint
    again = await shadow.snapshot("second")
    assert isinstance(again, CheckpointInfo)
    assert again.id == info.id


async def test_a_change_after_the_first_snapshot_is_seen(
    shadow: ShadowRepository, project: Path, git: str
) -> None:
    odd_project(project)
    first = await shadow.snapshot("first")
    assert isinstance(first, CheckpointInfo)
    # same size, same second: only the racy-entry check or the mtime can tell
    (project / "same-a.txt").write_text("thrice\n")
    second = await shadow.snapshot("second")
    assert isinstance(second, CheckpointInfo)
    assert second.id != first.id
    shown = shadow_git(shadow, git, "show", f"{second.id}:same-a.txt")
    assert shown == "thrice\n"


async def test_loose_objects_of_later_snapshots_find_their_folders_made(
    shadow: ShadowRepository, project: Path, git: str
) -> None:
    """A first snapshot writes a pack, so git would make each ``objects/xx`` folder as a
    later snapshot's first object of that prefix arrives (a new folder and a new file each);
    they are made once, private, and again after ``gc`` removed the empty ones."""
    odd_project(project)
    assert isinstance(await shadow.snapshot("first"), CheckpointInfo)
    objects = shadow.paths.git_dir / "objects"

    def fan_out() -> set[str]:
        return {p.name for p in objects.iterdir() if len(p.name) == 2}

    made = fan_out()
    assert made == {f"{i:02x}" for i in range(256)}
    assert {(objects / name).stat().st_mode & 0o777 for name in made} == {0o700}
    for i in range(40):  # ~40 new blobs and their trees: none needs a folder of its own
        (project / "a" / f"new{i}.txt").write_text(f"new {i}\n")
    before = {p.stat().st_ino for p in objects.iterdir()}
    assert isinstance(await shadow.snapshot("second"), CheckpointInfo)
    assert {p.stat().st_ino for p in objects.iterdir()} == before
    shadow_git(shadow, git, "gc", "--prune=now", "--quiet")  # as retention runs it
    assert len(fan_out()) < 256
    (project / "a" / "after-gc.txt").write_text("after\n")
    assert isinstance(await shadow.snapshot("third"), CheckpointInfo)
    assert fan_out() == made


def test_pack_writer_stores_big_and_repeated_blobs_git_can_read(tmp_path: Path, git: str) -> None:
    repo = tmp_path / "r.git"
    subprocess.run([git, "init", "-q", "--bare", str(repo)], check=True)
    writer = PackWriter(repo / "objects" / "pack")
    blobs = [b"", b"a\n", b"a\n", os.urandom(300_000), b"x" * 5_000_000]
    oids = [writer.add(b) for b in blobs]
    assert oids[1] == oids[2]
    pack = writer.finish()
    assert pack is not None
    for data, oid in zip(blobs, oids, strict=True):
        shown = subprocess.run(
            [git, "--git-dir", str(repo), "cat-file", "blob", oid.hex()],
            capture_output=True, check=True,
        )  # fmt: skip
        assert shown.stdout == data
        assert oid == blob_id(data)
    subprocess.run([git, "--git-dir", str(repo), "verify-pack", str(pack)], check=True)
    assert not list(pack.parent.glob("tmp_*"))


def test_an_empty_pack_is_not_published(tmp_path: Path) -> None:
    writer = PackWriter(tmp_path / "pack")
    assert writer.finish() is None
    assert list((tmp_path / "pack").iterdir()) == []


def test_index_entries_are_sorted_by_path_bytes_and_padded(tmp_path: Path) -> None:
    info = os.lstat(tmp_path)
    data = index_bytes([IndexEntry(b"b", info, b"\1" * 20), IndexEntry(b"a/b", info, b"\2" * 20)])
    assert data[:12] == b"DIRC\0\0\0\2\0\0\0\2"
    first_name = data[12 + 62 : 12 + 62 + 3]
    assert first_name == b"a/b"
    assert (len(data) - 12 - 20) % 8 == 0


def test_trees_of_a_project_nested_thousands_deep_are_built_without_recursion(
    tmp_path: Path,
) -> None:
    (tmp_path / "file").write_text("x")
    info = os.lstat(tmp_path / "file")  # a plain file: mode 100644
    deep = b"/".join([b"d"] * 3000) + b"/f"
    stored: list[bytes] = []

    def store(data: bytes) -> bytes:
        stored.append(data)
        return object_id(b"tree", data)

    entries = [IndexEntry(deep, info, b"\1" * 20), IndexEntry(b"top", info, b"\2" * 20)]
    root = write_trees(entries, store)
    assert len(stored) == 3001  # one per folder, the deepest first, the root last
    assert stored[0] == b"100644 f\0" + b"\1" * 20
    assert stored[1] == b"40000 d\0" + object_id(b"tree", stored[0])
    assert (
        stored[-1] == b"40000 d\0" + object_id(b"tree", stored[-2]) + b"100644 top\0" + b"\2" * 20
    )
    assert root == object_id(b"tree", stored[-1])
