"""The resolver and the no-follow IO on their own: symlinks on the way, modes, many folders."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from zengine_jupyter.host import Directories, WriteOptions, check_path_text, resolve_path
from zengine_jupyter.protocol import PathError, ToolError


def test_resolution_sees_through_symlinks_and_classifies(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / "real").mkdir(parents=True)
    (root / "in").symlink_to(root / "real")
    (root / "out").symlink_to(tmp_path)
    assert resolve_path("in/x.txt", root).path == root / "real" / "x.txt"
    assert resolve_path("in/x.txt", root).shown == "real/x.txt"
    assert resolve_path("in/x.txt", root).inside
    outside = resolve_path("out/x.txt", root)
    assert outside.path == tmp_path / "x.txt"
    assert not outside.inside
    assert resolve_path("in/../x", root).path == root / "x"  # .. after the real folder
    with pytest.raises(PathError) as caught:
        check_path_text("a\0b")
    assert isinstance(caught.value, ToolError)
    assert isinstance(caught.value, ValueError)


def test_a_symlink_on_the_way_is_refused_or_replaced(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "d").symlink_to(outside)
    with Directories(root) as dirs, pytest.raises(PathError, match="d is now a symlink"):
        dirs.write_bytes(root / "d" / "x.txt", b"x")
    with Directories(root) as dirs:
        assert not dirs.remove(root / "d" / "x.txt", up_to=root)
        dirs.write_bytes(root / "d" / "x.txt", b"x", WriteOptions(restoring=True))
    assert not (root / "d").is_symlink()
    assert (root / "d" / "x.txt").read_bytes() == b"x"
    assert list(outside.iterdir()) == []


def open_fds() -> int:
    return len(list(Path("/proc/self/fd").iterdir()))


def test_deep_trees_and_many_folders_keep_few_descriptors(tmp_path: Path) -> None:
    root = tmp_path / "p"
    deep = root.joinpath(*[f"d{i}" for i in range(100)])
    before = open_fds()
    with Directories(root) as dirs:
        dirs.write_bytes(deep / "leaf.txt", b"x", WriteOptions(create_parents=True))
        for i in range(300):
            dirs.write_bytes(root / f"w{i}" / "f.txt", b"y", WriteOptions(create_parents=True))
        assert open_fds() - before <= 70
        assert dirs.remove(deep / "leaf.txt", up_to=root)
    assert open_fds() == before
    assert not (root / "d0").exists()  # emptied folders went too
    assert (root / "w299" / "f.txt").read_bytes() == b"y"


def test_restore_mode_rules(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_text("a")
    path.chmod(0o640)
    with Directories() as dirs:
        dirs.write_bytes(path, b"b", WriteOptions(executable=True, restoring=True))
        assert stat.S_IMODE(path.stat().st_mode) == 0o750
        dirs.write_bytes(path, b"c", WriteOptions(executable=False, restoring=True))
        assert stat.S_IMODE(path.stat().st_mode) == 0o640
