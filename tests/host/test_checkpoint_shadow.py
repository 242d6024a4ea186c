"""Snapshots and restores against real git; the user's repository must stay untouched."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

import pytest

from zengine_jupyter.host.checkpoint import (
    MAX_FILE_BYTES,
    ShadowRepository,
    restore_code,
    unsafe_root_reason,
)
from zengine_jupyter.protocol import CheckpointError, CheckpointInfo, CheckpointsOff
from zengine_jupyter.testing.trees import digest_tree, tree_state


def sh(cwd: Path, *argv: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        argv, cwd=cwd, capture_output=True, text=True, check=True, env=env, timeout=60
    )
    return done.stdout


def user_repo(root: Path, git: str) -> None:
    """A user's real repository: commits, staged changes, hooks, its own config."""
    sh(root, git, "init", "-q")
    sh(root, git, "config", "user.name", "Ann")
    sh(root, git, "config", "user.email", "ann@example.invalid")
    sh(root, git, "config", "core.autocrlf", "true")
    (root / ".gitignore").write_text("*.log\ndata/raw/\n")
    (root / "pipeline.py").write_text("def run():\n    return 1\n")
    sh(root, git, "add", "-A")
    sh(root, git, "commit", "-qm", "first")
    (root / "pipeline.py").write_text("def run():\n    return 2\n")
    (root / "staged.py").write_text("x = 1\n")
    sh(root, git, "add", "staged.py")
    hook = root / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\ntouch {root.parent / 'HOOK-RAN'}\n")
    hook.chmod(0o755)
    (root / ".git" / "info" / "exclude").write_text("secret-notes.txt\n")


async def snap(shadow: ShadowRepository, message: str = "m") -> CheckpointInfo:
    info = await shadow.snapshot(message)
    assert isinstance(info, CheckpointInfo), info
    return info


async def test_users_repository_is_byte_identical_after_many_snapshots_and_restores(
    shadow: ShadowRepository, project: Path, git: str
) -> None:
    user_repo(project, git)
    git_before = digest_tree(project / ".git")
    status_before = sh(project, git, "status", "--porcelain")

    first = await snap(shadow, "turn 1")
    for i in range(5):
        (project / f"made_by_shell_{i}.csv").write_text(f"a,b\n{i},{i}\n")
        (project / "pipeline.py").write_text(f"def run():\n    return {i + 10}\n")
        await snap(shadow, f"turn {i + 2}")
        result = await restore_code(shadow, first.id)
        assert "pipeline.py" in result.restored

    assert digest_tree(project / ".git") == git_before
    assert sh(project, git, "status", "--porcelain") == status_before
    assert not (project.parent / "HOOK-RAN").exists()
    assert (project / "pipeline.py").read_text() == "def run():\n    return 2\n"
    assert not (project / "made_by_shell_0.csv").exists()


async def test_ignored_files_and_info_exclude_are_left_out(
    shadow: ShadowRepository, project: Path, git: str
) -> None:
    user_repo(project, git)
    (project / "run.log").write_text("log")
    (project / "secret-notes.txt").write_text("mine")
    (project / "data" / "raw").mkdir(parents=True)
    (project / "data" / "raw" / "huge.csv").write_text("1,2\n")
    info = await snap(shadow)
    files = sh(project, git, "ls-tree", "-r", "--name-only", info.id, env=_shadow_env(shadow))
    assert sorted(files.split()) == [".gitignore", "pipeline.py", "staged.py"]


def _shadow_env(shadow: ShadowRepository) -> dict[str, str]:
    return {**os.environ, "GIT_DIR": str(shadow.paths.git_dir)}


async def test_shell_changes_are_captured_and_restore_removes_created_files(
    shadow: ShadowRepository, project: Path
) -> None:
    (project / "a.py").write_text("a")
    (project / "sub").mkdir()
    (project / "sub" / "b.py").write_text("b")
    first = await snap(shadow)
    (project / "a.py").write_text("changed")
    (project / "sub" / "b.py").unlink()
    (project / "new" / "deep").mkdir(parents=True)
    (project / "new" / "deep" / "c.py").write_text("c")
    result = await restore_code(shadow, first.id)
    assert result.restored == ["a.py", "sub/b.py"]
    assert result.removed == ["new/deep/c.py"]
    assert not (project / "new").exists()
    assert set(tree_state(project)) == {"a.py", "sub/b.py"}
    assert (project / "a.py").read_text() == "a"
    # the rewind itself can be undone
    undo = await restore_code(shadow, result.safety_checkpoint)
    assert (project / "a.py").read_text() == "changed"
    assert (project / "new" / "deep" / "c.py").read_text() == "c"
    assert "new/deep/c.py" in undo.restored


async def test_oversized_files_are_listed_and_left_alone(
    shadow: ShadowRepository, project: Path
) -> None:
    (project / "model.bin").write_bytes(b"1" * 100)
    first = await snap(shadow)
    assert first.not_stored == []
    (project / "model.bin").write_bytes(b"2" * (MAX_FILE_BYTES + 1))
    (project / "weights.bin").write_bytes(b"3" * (MAX_FILE_BYTES + 10))
    second = await snap(shadow)
    assert {(n.path, n.reason) for n in second.not_stored} == {
        ("model.bin", "too_large"),
        ("weights.bin", "too_large"),
    }
    assert [n.path for n in (await shadow.get(second.id)).not_stored] == [
        n.path for n in second.not_stored
    ]
    result = await restore_code(shadow, first.id)
    assert (project / "model.bin").stat().st_size == MAX_FILE_BYTES + 1  # untouched
    assert (project / "weights.bin").exists()
    assert {n.path for n in result.left_alone} >= {"model.bin", "weights.bin"}
    assert "installed packages" in result.note


async def test_gitattributes_never_change_the_bytes(
    shadow: ShadowRepository, project: Path
) -> None:
    (project / ".gitattributes").write_text("* text eol=crlf\n*.dat filter=lfs\n")
    (project / "unix.txt").write_bytes(b"a\nb\n")
    (project / "x.dat").write_bytes(b"\x00\x01raw\n")
    first = await snap(shadow)
    (project / "unix.txt").write_bytes(b"other")
    (project / "x.dat").unlink()
    await restore_code(shadow, first.id)
    assert (project / "unix.txt").read_bytes() == b"a\nb\n"
    assert (project / "x.dat").read_bytes() == b"\x00\x01raw\n"


async def test_no_change_snapshot_reuses_the_last_one(
    shadow: ShadowRepository, project: Path
) -> None:
    (project / "a.py").write_text("a")
    first = await snap(shadow, "one")
    again = await snap(shadow, "two")
    assert again.id == first.id
    (project / "a.py").write_text("b")
    third = await snap(shadow, "three")
    assert third.id != first.id
    assert [c.message for c in await shadow.list()] == ["three", "one"]


async def test_concurrent_snapshots_from_two_kernels_are_serialised(
    project: Path, zengine_home: Path, git: str
) -> None:
    (project / "a.py").write_text("a")
    one = ShadowRepository(project, zengine_home, git=git)
    two = ShadowRepository(project, zengine_home, git=git)
    results = await asyncio.gather(*(r.snapshot(f"s{i}") for i, r in enumerate([one, two] * 3)))
    assert all(isinstance(r, CheckpointInfo) for r in results)
    (project / "a.py").write_text("b")
    latest = await snap(one)
    assert latest.id == (await two.list())[0].id


async def test_unknown_checkpoint_is_a_typed_error(shadow: ShadowRepository, project: Path) -> None:
    (project / "a.py").write_text("a")
    await snap(shadow)
    with pytest.raises(CheckpointError, match="no checkpoint"):
        await shadow.get("0123456789abcdef0123456789abcdef01234567")
    with pytest.raises(CheckpointError, match="not a checkpoint id"):
        await shadow.get("HEAD; rm -rf /")


async def test_home_and_filesystem_root_are_refused(zengine_home: Path, git: str) -> None:
    assert unsafe_root_reason(Path("/"))
    assert "home folder" in (unsafe_root_reason(Path.home().resolve()) or "")
    off = await ShadowRepository(Path("/"), zengine_home, git=git).snapshot("m")
    assert isinstance(off, CheckpointsOff)
    assert off.kind == "unsafe_root"


async def test_exec_bits_symlinks_and_binary_files_round_trip(
    shadow: ShadowRepository, project: Path
) -> None:
    script = project / "run.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o755)
    (project / "blob.bin").write_bytes(bytes(range(256)))
    (project / "link").symlink_to("run.sh")
    (project / "empty").write_bytes(b"")
    first = await snap(shadow)
    expected = tree_state(project)
    script.chmod(0o644)
    (project / "blob.bin").write_bytes(b"changed")
    (project / "link").unlink()
    (project / "link").symlink_to("elsewhere")
    (project / "empty").write_text("now full")
    result = await restore_code(shadow, first.id)
    assert tree_state(project) == expected
    assert expected["run.sh"][0] == "exec"
    assert sorted(result.restored) == ["blob.bin", "empty", "link", "run.sh"]


async def test_nested_repository_and_submodule_are_left_out_whole_and_untouched(
    shadow: ShadowRepository, project: Path, git: str, tmp_path: Path
) -> None:
    """Documented behaviour: a folder that is its own git repository (a nested clone or a
    submodule) is not part of the snapshots. It is listed as not stored, never renamed or
    written, and rewind leaves its files as they are."""
    user_repo(project, git)
    nested = project / "vendor" / "tool"
    nested.mkdir(parents=True)
    user_repo(nested, git)
    libsrc = tmp_path / "libsrc"
    libsrc.mkdir()
    user_repo(libsrc, git)
    sh(libsrc, git, "commit", "-qm", "second", "--no-verify")
    allow_file = ("-c", "protocol.file.allow=always")
    sh(project, git, *allow_file, "submodule", "add", "-q", str(libsrc), "lib")
    before = {p: digest_tree(p) for p in (project / ".git", nested / ".git", libsrc / ".git")}

    first = await snap(shadow)
    assert {(n.path, n.reason) for n in first.not_stored} == {
        ("vendor/tool/", "nested_repository"),
        ("lib/", "nested_repository"),
    }
    (nested / "pipeline.py").write_text("changed inside the nested repository")
    (project / "lib" / "extra.py").write_text("new inside the submodule")
    (project / "pipeline.py").write_text("changed in the project")
    result = await restore_code(shadow, first.id)

    assert result.restored == ["pipeline.py"]
    assert (nested / "pipeline.py").read_text() == "changed inside the nested repository"
    assert (project / "lib" / "extra.py").exists()
    assert {"vendor/tool/", "lib/"} <= {n.path for n in result.left_alone}
    assert (project / ".git").is_dir()
    assert (nested / ".git").is_dir()
    assert (project / "lib" / ".git").is_file()
    after = {p: digest_tree(p) for p in before}
    assert after == before


async def test_more_than_50000_files_turns_checkpoints_off_with_a_notice(
    shadow: ShadowRepository, project: Path
) -> None:
    for d in range(51):
        folder = project / f"d{d:02}"
        folder.mkdir()
        for i in range(1000 if d < 50 else 1):
            (folder / f"{i}.txt").touch()
    off = await shadow.snapshot("m")
    assert isinstance(off, CheckpointsOff)
    assert off.kind == "too_many_files"
    assert "more than 50,000 files" in off.reason
    assert ".gitignore" in off.reason
    # nothing was stored: the scan stopped counting, git hashed no file
    assert not list((shadow.paths.git_dir / "objects").glob("??/*"))
    # under the limit again once a big folder is ignored
    (project / "d50" / "0.txt").unlink()
    (project / ".gitignore").write_text("d49/\n")
    info = await shadow.snapshot("m")
    assert isinstance(info, CheckpointInfo)
    assert info.file_count == 49_001
