"""Other users' home folders, which a sandboxed command sees empty.

On a shared host (a JupyterHub's single-user servers as Unix users) a home folder is often open
to the others (0755: Debian before 12, ``adduser`` on many hubs, Ubuntu's 0750 with a shared
group): the sandbox's read-only view of ``/`` would let one user's agent list and read another
user's notebooks, projects and settings. The homes found here are covered by an empty tmpfs in
the sandbox: regular users' homes from the password database, and the folders beside the
user's own home owned by another regular user (``/home/*``: users of a directory service
are not always listed). A home this
process cannot enter anyway is left alone (no mount for nothing), and so is one that holds the
running Python (an install shared from someone's home) or the user's own home.
"""

from __future__ import annotations

import contextlib
import functools
import os
import pwd
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["other_homes"]

FIRST_REGULAR_UID = 1000
"""Debian's and most distributions' UID_MIN: system accounts (root, daemons) sit below it."""
NOBODY_UID = 65534


def _regular(owner: int, uid: int) -> bool:
    """Whether ``owner`` is another regular user than ``uid`` (not a system account)."""
    return owner != uid and FIRST_REGULAR_UID <= owner < NOBODY_UID


def _candidates(own: Path, uid: int) -> Iterable[Path]:
    with contextlib.suppress(OSError):
        for user in pwd.getpwall():
            if _regular(user.pw_uid, uid):
                yield Path(user.pw_dir)
    parent = own.parent
    if parent != own and parent != Path("/"):
        with contextlib.suppress(OSError), os.scandir(parent) as entries:
            for entry in entries:
                with contextlib.suppress(OSError):
                    owner = entry.stat(follow_symlinks=False).st_uid
                    if entry.is_dir(follow_symlinks=False) and _regular(owner, uid):
                        yield Path(entry.path)


@functools.cache
def _interpreter() -> frozenset[Path]:
    """Where the running Python lives (resolved once: it does not move while it runs; resolving
    it on every plan took ~60 ``lstat`` calls, ~0.1 ms of the plan's 0.74 ms, issue 25)."""
    where = (sys.prefix, sys.base_prefix, sys.executable)
    return frozenset(Path(os.path.realpath(p)) for p in where)


def other_homes(own_home: Path, uid: int | None = None) -> list[Path]:
    """Resolved home folders of other users that this process can enter, except the ones that
    hold ``own_home`` or the running Python (see the module docstring)."""
    uid = os.getuid() if uid is None else uid
    own = Path(os.path.realpath(own_home))
    keep = {*_interpreter(), own}
    found: dict[Path, None] = {}
    for candidate in _candidates(own, uid):
        home = Path(os.path.realpath(candidate))
        if home == Path("/") or not home.is_dir() or not os.access(home, os.X_OK):
            continue
        if any(k == home or k.is_relative_to(home) for k in keep):
            continue
        if own.is_relative_to(home):
            continue
        found[home] = None
    return sorted(found)
