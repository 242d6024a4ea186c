"""The git command lines are pure functions: check them exactly."""

from __future__ import annotations

from pathlib import Path

import pytest

from zengine_jupyter.host.checkpoint import ShadowPaths, git_argv, git_env, project_key
from zengine_jupyter.host.checkpoint._compare import parse_diff_tree
from zengine_jupyter.host.checkpoint._scan import Scan, classify, parse_status, read_index_count

PATHS = ShadowPaths(Path("/data/checkpoints/p-1"), Path("/work/p"))


def test_every_call_isolates_configuration_and_hooks() -> None:
    # the settings every engine git call carries (host/_git_safe.py), then the shadow's own
    assert git_argv(PATHS, "write-tree") == [
        "git",
        "-c", "core.fsmonitor=false",
        "-c", "core.hooksPath=/dev/null",
        "-c", "core.sshCommand=false",
        "-c", "core.pager=cat",
        "-c", "core.editor=false",
        "-c", "sequence.editor=false",
        "-c", "credential.helper=",
        "-c", "gpg.program=false",
        "-c", "commit.gpgSign=false",
        "-c", "protocol.allow=never",
        "-c", "safe.bareRepository=explicit",
        "-c", "submodule.recurse=false",
        "-c", "core.autocrlf=false",
        "-c", "core.safecrlf=false",
        "-c", "core.eol=lf",
        "-c", "core.filemode=true",
        "-c", "core.symlinks=true",
        "-c", "core.ignorecase=false",
        "-c", "core.untrackedCache=true",
        "-c", "core.quotePath=false",
        "-c", "core.sparseCheckout=false",
        "-c", "gc.auto=0",
        "-c", "maintenance.auto=false",
        "-c", "advice.detachedHead=false",
        "-c", "core.excludesFile=/data/checkpoints/p-1/zengine-exclude",
        "write-tree",
    ]  # fmt: skip


def test_extra_config_cannot_undo_a_safety_setting() -> None:
    with pytest.raises(ValueError, match=r"core\.fsmonitor"):
        git_argv(PATHS, "status", extra_config=(("core.fsmonitor", "true"),))


def test_extra_config_comes_after_isolation() -> None:
    argv = git_argv(PATHS, "add", extra_config=(("core.compression", "1"),), git="/usr/bin/git")
    assert argv[0] == "/usr/bin/git"
    assert argv[-3:] == ["-c", "core.compression=1", "add"]


def test_environment_names_the_shadow_and_shuts_out_user_config() -> None:
    env = git_env(PATHS)
    assert env["GIT_DIR"] == "/data/checkpoints/p-1"
    assert env["GIT_WORK_TREE"] == "/work/p"
    assert env["GIT_INDEX_FILE"] == "/data/checkpoints/p-1/zengine-index"
    assert env["GIT_CONFIG_NOSYSTEM"] == "1"
    assert env["GIT_CONFIG_GLOBAL"] == "/dev/null"
    assert env["GIT_CONFIG_SYSTEM"] == "/dev/null"
    assert env["GIT_LITERAL_PATHSPECS"] == "1"


def test_project_key_is_readable_and_unique() -> None:
    a, b = project_key(Path("/home/ann/my data")), project_key(Path("/srv/my data"))
    assert a.startswith("my_data-")
    assert a != b
    assert project_key(Path("/home/ann/my data")) == a


def test_status_records_are_classified(tmp_path: Path) -> None:
    (tmp_path / "new.py").write_text("x")
    (tmp_path / "big.bin").write_bytes(b"\0" * (8 * 1024 * 1024 + 1))
    (tmp_path / "edited.py").write_text("y")
    raw = b"?? new.py\0?? big.bin\0?? nested/\0 M edited.py\0 D gone.py\0M  staged-only.py\0"
    scan = Scan()
    classify(parse_status(raw), tmp_path, scan)
    assert scan.update == ["new.py", "edited.py"]
    assert scan.remove == ["gone.py"]
    assert [(n.path, n.reason) for n in scan.not_stored] == [
        ("big.bin", "too_large"),
        ("nested/", "nested_repository"),
    ]
    assert scan.untracked == 3


def test_diff_tree_output_is_split_by_status() -> None:
    # raw format (restore writes the blobs itself, so it needs each target's mode and id)
    a, b, z = "a" * 40, "b" * 40, "0" * 40
    raw = (
        f":100644 100755 {a} {b} M\0a.py\0:000000 100644 {z} {b} A\0back.py\0"
        f":100644 000000 {a} {z} D\0new.py\0:100644 120000 {a} {b} T\0link\0"
    )
    diff = parse_diff_tree(raw.encode())
    assert diff.changed == ["a.py", "link"]
    assert diff.missing == ["back.py"]
    assert diff.delete == ["new.py"]
    assert diff.blobs["a.py"].executable
    assert diff.blobs["link"].symlink
    assert diff.blobs["back.py"].oid == b
    assert "new.py" not in diff.blobs


def test_index_count_reads_the_header(tmp_path: Path) -> None:
    index = tmp_path / "index"
    assert read_index_count(index) == 0
    index.write_bytes(b"DIRC\0\0\0\x02\0\0\x01\x2c" + b"\0" * 20)
    assert read_index_count(index) == 300
