"""The shared view the hub test runs the users' servers in (zengine_jupyter.testing.unix_users):
a folder others cannot enter above the shared install becomes a 0711 tmpfs with just the
install bound back; with nothing closed the command runs as it is."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from zengine_jupyter.testing.unix_users import UnixUser, as_user, shared_view


def test_nothing_closed_runs_the_command_as_it_is() -> None:
    assert shared_view(["true"], [Path("/usr/bin")]) == ["true"]


def test_a_closed_folder_shows_only_the_shared_paths(tmp_path: Path) -> None:
    closed = tmp_path / "closed"
    (closed / "install").mkdir(parents=True)
    (closed / "install" / "tool.txt").write_text("shared\n")
    (closed / "private.txt").write_text("root's own\n")
    closed.chmod(0o700)
    argv = shared_view(["ls", "-A", str(closed)], [closed / "install"])
    assert argv[:2] == ["unshare", "--mount"]
    if subprocess.run(["unshare", "--mount", "true"], check=False).returncode != 0:
        pytest.skip("this machine refuses mount namespaces")
    seen = subprocess.run(argv, capture_output=True, text=True, check=True).stdout.split()
    assert seen == ["install"]
    assert closed.stat().st_mode & 0o777 == 0o700  # the real folder is untouched
    inside = shared_view(["cat", str(closed / "install" / "tool.txt")], [closed / "install"])
    assert subprocess.run(inside, capture_output=True, text=True, check=True).stdout == "shared\n"


def test_as_user_switches_uid_and_groups() -> None:
    user = UnixUser("nobody", 65534, 65534, Path("/nonexistent"))
    argv = as_user(user, [sys.executable, "-c", "pass"])
    assert argv[:4] == ["setpriv", "--reuid=65534", "--regid=65534", "--init-groups"]
    assert argv[-3:] == [sys.executable, "-c", "pass"]
