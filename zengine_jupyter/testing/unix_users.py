"""Real Unix users for the multi-user tests (JupyterHub), and running commands as them.

``unix_users`` creates users with ``useradd`` (home folders 0700, as a hub's admin would) and
removes them with their homes afterwards; it needs root. The engine is installed once, in this
environment; when the interpreter, the environment or the repository sits below a folder other
users cannot enter (pyenv under a 0700 ``/root``), ``shared_view`` wraps a command so it runs in
a private mount namespace where that folder is a 0711 tmpfs holding only those paths, bound back
at the same place: the users can run the shared install, and nothing else of root's home shows
(no permission on the real file system changes, and nothing is left behind if a test dies).
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

__all__ = ["UnixUser", "as_user", "require_root", "shared_paths", "shared_view", "unix_users"]

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class UnixUser:
    """A user the test created: name, uid, gid and home folder."""

    name: str
    uid: int
    gid: int
    home: Path

    def env(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """A login-like environment for this user (no variable of the test's own leaks in)."""
        base = {
            "HOME": str(self.home),
            "USER": self.name,
            "LOGNAME": self.name,
            "SHELL": "/bin/bash",
            "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "PYTHONPATH": str(REPO),
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        return {**base, **(extra or {})}


def require_root() -> None:
    """Skip (fail under CI=true) unless this process is root: creating users needs it."""
    import pytest

    from zengine_jupyter.testing.components import in_ci

    if os.geteuid() == 0 and shutil.which("useradd") and shutil.which("setpriv"):
        return
    reason = "the multi-user test needs root, useradd and setpriv (it creates Unix users)"
    if in_ci():
        pytest.fail(f"CI=true and {reason}", pytrace=False)
    pytest.skip(reason)


def _processes_of(uid: int) -> list[int]:
    """The ids of the processes running as ``uid`` (servers and kernels a test started)."""
    pids = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if entry.name.isdigit() and entry.stat().st_uid == uid:
                pids.append(int(entry.name))
    return pids


def _remove(name: str) -> None:
    """Remove user ``name`` and its home; a process of theirs a dead hub left is killed (by
    its id) first."""
    try:
        uid = pwd.getpwnam(name).pw_uid
    except KeyError:
        return
    for pid in _processes_of(uid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    subprocess.run(["userdel", "-f", "-r", name], capture_output=True, check=False)
    for tmp in {Path("/tmp"), Path(tempfile.gettempdir())}:  # the sandbox's temp folder
        shutil.rmtree(tmp / f"zengine-{uid}", ignore_errors=True)


@contextlib.contextmanager
def unix_users(*names: str) -> Iterator[list[UnixUser]]:
    """Create ``names`` (a leftover of a killed run is removed first) with 0700 homes; remove
    them and their homes afterwards."""
    users: list[UnixUser] = []
    try:
        for name in names:
            _remove(name)
            subprocess.run(
                ["useradd", "--create-home", "--shell", "/bin/bash", "--user-group", name],
                check=True,
                capture_output=True,
            )
            entry = pwd.getpwnam(name)
            home = Path(entry.pw_dir)
            home.chmod(0o700)
            users.append(UnixUser(name, entry.pw_uid, entry.pw_gid, home))
        yield users
    finally:
        for name in names:
            _remove(name)


def shared_paths() -> list[Path]:
    """What every user must reach to run the engine: the interpreter's prefix, this
    environment and the repository (the package is imported from it)."""
    paths = {Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve(), REPO}
    paths.add(Path(sys.executable).resolve().parent)
    return sorted(paths)


def _closed_ancestor(path: Path) -> Path | None:
    """The highest folder above ``path`` that others cannot enter (no o+x), if any."""
    for folder in reversed(path.parents):
        if folder != Path("/") and not folder.stat().st_mode & 0o001:
            return folder
    return None


def shared_view(argv: Sequence[str], paths: Sequence[Path] | None = None) -> list[str]:
    """``argv`` as is when every one of ``paths`` (default :func:`shared_paths`) can be reached
    by other users; else ``argv`` run through ``unshare`` in a mount namespace where each
    closed folder above them is a 0711 tmpfs with just those paths bound back (see the module
    docstring). Children (a hub's servers, their kernels) inherit the namespace."""
    closed: dict[Path, list[Path]] = {}
    for path in paths if paths is not None else shared_paths():
        top = _closed_ancestor(path)
        if top is not None:
            closed.setdefault(top, []).append(path)
    if not closed:
        return list(argv)
    lines = ["set -eu", "umask 022", 'stage="$(mktemp -d)"']
    for index, (top, inside) in enumerate(sorted(closed.items())):
        real = f'"$stage"/{index}'
        lines += [f"mkdir {real}", f"mount --bind {shlex.quote(str(top))} {real}"]
        lines.append(f"mount -t tmpfs -o mode=0711 zengine-shared {shlex.quote(str(top))}")
        for path in inside:
            rel = shlex.quote(str(path.relative_to(top)))
            target = shlex.quote(str(path))
            lines += [f"mkdir -p {target}", f"mount --bind {real}/{rel} {target}"]
        lines += [f"umount {real}", f"rmdir {real}"]
    lines += ['rmdir "$stage"', 'exec "$@"']
    script = "\n".join(lines)
    return ["unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c", script,
            "shared-view", *argv]  # fmt: skip


def as_user(user: UnixUser, argv: Sequence[str]) -> list[str]:
    """``argv`` run as ``user`` (its uid, gid and groups; the environment is the caller's)."""
    return ["setpriv", f"--reuid={user.uid}", f"--regid={user.gid}", "--init-groups", "--",
            *argv]  # fmt: skip
