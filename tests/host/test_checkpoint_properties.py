"""Property: snapshot, edit anything, restore -> the tree equals the snapshot exactly."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zengine_jupyter.host.checkpoint import MAX_FILE_BYTES, ShadowRepository, restore_code
from zengine_jupyter.protocol import CheckpointInfo
from zengine_jupyter.testing.trees import tree_state

NAMES = st.sampled_from(["a.py", "données.csv", "空 .txt", "-dash", "x*?[].txt"])
DIRS = st.sampled_from(["", "src/", "notebooks/ü/"])
PATHS = st.builds(lambda d, n: d + n, DIRS, NAMES)
CONTENT = st.one_of(st.binary(max_size=64), st.just(b""), st.text(max_size=40).map(str.encode))

EDIT = st.one_of(
    st.tuples(st.just("write"), PATHS, CONTENT),
    st.tuples(st.just("delete"), PATHS, st.just(b"")),
    st.tuples(st.just("chmod"), PATHS, st.just(b"")),
    st.tuples(st.just("symlink"), PATHS, st.sampled_from([b"a.py", b"../outside", b"src"])),
    st.tuples(st.just("rename"), PATHS, PATHS.map(str.encode)),
)


def apply(root: Path, edit: tuple[str, str, bytes]) -> None:
    kind, rel, arg = edit
    path = root / rel
    if kind in ("write", "symlink"):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        for parent in reversed(path.relative_to(root).parents):
            full = root / parent
            if full.is_symlink() or full.is_file():
                full.unlink()
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink() or path.exists():
            path.unlink()
        if kind == "write":
            path.write_bytes(arg)
        else:
            path.symlink_to(os.fsdecode(arg))
    elif kind == "delete" and (path.is_symlink() or path.is_file()):
        path.unlink()
    elif kind == "chmod" and path.is_file() and not path.is_symlink():
        path.chmod(path.stat().st_mode ^ 0o100)
    elif kind == "rename" and (path.is_file() and not path.is_symlink()):
        target = root / os.fsdecode(arg)
        if not target.exists() and not target.is_symlink() and not target.parent.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            path.rename(target)


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(before=st.lists(EDIT, max_size=12), after=st.lists(EDIT, min_size=1, max_size=12))
def test_restore_gives_back_the_snapshot_exactly(
    before: list[tuple[str, str, bytes]], after: list[tuple[str, str, bytes]], git: str
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root, home = Path(tmp, "p"), Path(tmp, "home")
        root.mkdir()
        (root / ".gitignore").write_text("*.log\n")
        (root / "keep.log").write_text("ignored, never touched")
        (root / "big.bin").write_bytes(b"b" * (MAX_FILE_BYTES + 1))
        for edit in before:
            apply(root, edit)
        repo = ShadowRepository(root, home, git=git)

        async def scenario() -> None:
            snap = await repo.snapshot("before")
            assert isinstance(snap, CheckpointInfo)
            expected = tree_state(root)
            for edit in after:
                apply(root, edit)
            (root / "keep.log").write_text("changed while ignored")
            result = await restore_code(repo, snap.id)
            assert tree_state(root) == {**expected, "keep.log": tree_state(root)["keep.log"]}
            assert (root / "keep.log").read_text() == "changed while ignored"
            assert (root / "big.bin").stat().st_size == MAX_FILE_BYTES + 1
            assert "big.bin" in {n.path for n in result.left_alone}

        asyncio.run(scenario())
