"""Placeholders that block absent protected paths, shared safely between concurrent commands.

bubblewrap creates an empty folder on the host where it mounts a read-only placeholder, and the
launcher seeds ``.git/commondir`` with a neutral ``.``. They must go once no sandboxed command
needs them, but not before: removing a mount point in another mount namespace detaches the mount
there, which would reopen the path to a command still running.

So every launch holds a shared ``flock`` per protected path (lock files in the data folder, out
of the sandbox's reach) from before it looks at the filesystem until its command has ended. The
launch that created a placeholder removes it at the end only if it can take the lock exclusively,
i.e. no other command, in this process or another, still relies on it; otherwise the (neutral)
placeholder stays. Within one process, ownership passes to the last command that used it; a
left-over seed (its content is unmistakable) is adopted by the next launch. A folder placeholder
is marked in its path's lock file before bubblewrap makes it, and the mark is cleared once it is
gone: a process killed meanwhile leaves a marked empty folder, which the next launch adopts and
removes like a seed (an empty folder at a protected path with no mark is the user's, and stays).
Only empty folders and untouched seeds are ever removed.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import os
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from zengine_jupyter.config import data_dir, private_dir

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from concurrent.futures import ThreadPoolExecutor
    from pathlib import Path

    from zengine_jupyter.host.sandbox._profile import ProtectedPath

__all__ = [
    "Hold",
    "after_releases",
    "ensure_lock_folder",
    "hold_placeholders",
    "is_placeholder",
    "lock_folder",
    "release_later",
    "release_placeholders",
    "settle_placeholders",
    "write_seeds",
]

_owned: Counter[Path] = Counter()
_owned_names: set[str] = set()
"""``_owned``'s paths as strings, for :func:`is_placeholder` (asked ~40 times per command)."""
_holding: Counter[Path] = Counter()
"""Launches of this process holding each protected path (from hold to release)."""
_owned_lock = threading.Lock()


def lock_folder() -> Path:
    return data_dir() / "sandbox-locks"


def ensure_lock_folder() -> None:
    """Make the lock folder before a profile is derived: where the data folder holds the
    project, its entries beside the project are hidden one by one, and a folder made only at
    the first launch would be seen (with its marks) by that first command."""
    folder = lock_folder()
    if not folder.is_dir():
        private_dir(folder)


@dataclass
class Hold:
    """One launch's claim on the protected paths of its profile."""

    locks: dict[Path, int] = field(default_factory=dict)
    owned: list[ProtectedPath] = field(default_factory=list)
    counted: bool = False
    """Whether its paths are counted in ``_holding``."""


@functools.lru_cache(maxsize=256)
def _lock_name(path: Path) -> str:
    return hashlib.sha256(os.fsencode(path)).hexdigest()[:32]


def _lock(path: Path, folder: Path) -> int:
    import fcntl  # POSIX only; this module runs only for bubblewrap (Linux)

    file = folder / _lock_name(path)
    flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC
    try:
        fd = os.open(file, flags, 0o600)
    except FileNotFoundError:  # the first launch, or the folder was removed since
        private_dir(folder)
        fd = os.open(file, flags, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
    except BaseException:
        os.close(fd)
        raise
    return fd


def hold_placeholders(protected: Sequence[ProtectedPath]) -> Hold:
    """Lock every protected path (shared); call before re-checking which ones exist."""
    folder = lock_folder()
    held = Hold()
    try:
        for item in protected:
            held.locks[item.path] = _lock(item.path, folder)
    except BaseException:
        release_placeholders(held)
        raise
    with _owned_lock:  # in this process, a release never removes what a launch holds, even
        _holding.update(held.locks.keys())  # if their lock files differ (ZENGINE_HOME changed)
        held.counted = True
    return held


def write_seeds(held: Hold, protected: Sequence[ProtectedPath]) -> None:
    """Seed absent seeded paths and record which placeholders this launch owns.

    ``protected`` is the profile re-checked after :func:`hold_placeholders`. A seed that cannot
    be written is left to bubblewrap's folder placeholder (still blocked).
    """
    with _owned_lock:
        for item in protected:
            lock = held.locks.get(item.path)
            if (
                item.exists
                and item.path not in _owned
                and not _is_seed(item)
                and not _left_folder(item, lock)
            ):
                continue  # the user's own file or folder, or another process's placeholder
            if not item.exists and item.seed is not None:
                with contextlib.suppress(OSError):
                    fd = os.open(item.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                    with os.fdopen(fd, "wb") as handle:
                        handle.write(item.seed)
            elif not item.exists and lock is not None:
                _mark(lock)  # bubblewrap is about to make a folder here
            _owned[item.path] += 1
            _owned_names.add(str(item.path))
            held.owned.append(item)


def release_placeholders(held: Hold) -> None:
    """After the command: remove the placeholders nobody else needs, then drop the locks.

    Runs on the releaser thread. A placeholder another launch holds (in this process: counted
    in ``_holding``; in another: its shared lock) stays adoptable (owned, count 0) and is asked
    again after a pause taken outside the ownership lock, so a launch that starts meanwhile
    takes it over; removal itself happens under that lock, so no launch of this process looks
    at the path halfway."""
    try:
        retry: list[ProtectedPath] = []
        with _owned_lock:
            # deepest first: a seed such as .git/commondir must go before its folder (.git),
            # or the folder stays behind, empty, in the user's project
            for item in _deepest_first(held.owned):
                _owned[item.path] -= 1
                if _owned[item.path] <= 0 and _claim(held, item, retry):
                    _remove(item, held.locks[item.path])
        for _ in range(_TRIES - 1):
            if not retry:
                break
            time.sleep(0.02)  # another launch letting go of its shared lock
            with _owned_lock:
                pending, retry = retry, []
                for item in pending:
                    if _owned.get(item.path) == 0 and _claim(held, item, retry):
                        _remove(item, held.locks[item.path])
    finally:
        with _owned_lock:
            if held.counted:
                _holding.subtract(held.locks.keys())
                for path in [p for p in held.locks if _holding[p] <= 0]:
                    del _holding[path]
                held.counted = False
        for fd in held.locks.values():
            os.close(fd)
        held.locks.clear()
        held.owned.clear()


def _deepest_first(items: Sequence[ProtectedPath]) -> list[ProtectedPath]:
    return sorted(items, key=lambda i: len(i.path.parts), reverse=True)


_TRIES = 10


def _claim(held: Hold, item: ProtectedPath, retry: list[ProtectedPath]) -> bool:
    """Under ``_owned_lock``: True when this launch may remove ``item`` (nobody else, in this
    process or another, relies on it); a busy one is kept adoptable and queued in ``retry``."""
    fd = held.locks.get(item.path)
    if fd is None:
        _disown(item.path)
        return False
    if _holding[item.path] <= 1 and _exclusive(fd):
        _disown(item.path)
        return True
    _owned[item.path] = 0  # still ours to remove; a launch starting now adopts it
    retry.append(item)
    return False


def _disown(path: Path) -> None:
    del _owned[path]
    _owned_names.discard(str(path))


def is_placeholder(path: str) -> bool:
    """Whether ``path`` is a placeholder folder this process made for a sandbox and still owns,
    as it made it: an empty folder. The profile reads it as absent (``probe_path``), so a
    sandbox's own placeholders do not change the next command's profile; a folder the user has
    put something in since reads as the folder it is."""
    if path not in _owned_names:
        return False
    try:
        with os.scandir(path) as entries:
            return next(entries, None) is None
    except OSError:
        return False


def release_later(held: Hold) -> None:
    """:func:`release_placeholders` on the releaser thread: removing a folder costs a few
    milliseconds on some filesystems (rmdir on ext4 with discard: ~4 ms each), which the
    command's result need not wait for. :func:`settle_placeholders` waits for it."""
    _releaser().submit(release_placeholders, held)


def after_releases(job: Callable[[], object]) -> None:
    """Run ``job`` on the releaser thread, after the releases handed over so far (a warm
    sandbox's stop: wait for bubblewrap, then release its placeholders)."""
    _releaser().submit(job)


def settle_placeholders(timeout_s: float | None = 10.0) -> None:
    """Wait until every release handed to the releaser so far has run (tests, shutdown)."""
    _releaser().submit(lambda: None).result(timeout=timeout_s)


_pool: list[ThreadPoolExecutor] = []


def _releaser() -> ThreadPoolExecutor:
    """One worker, so releases run in order; joined at interpreter exit (pending ones run)."""
    from concurrent.futures import ThreadPoolExecutor

    with _owned_lock:
        if not _pool:
            _pool.append(ThreadPoolExecutor(1, thread_name_prefix="zengine-placeholders"))
        return _pool[0]


def _exclusive(fd: int) -> bool:
    """The lock for removal, asked once: a busy one is asked again outside the ownership lock."""
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _is_seed(item: ProtectedPath) -> bool:
    """A seed left by a command that could not clean up (no real file has that content)."""
    if item.seed is None or not item.seed.strip():
        return False
    try:
        return item.path.read_bytes() == item.seed
    except OSError:
        return False


_MARK = b"folder placeholder\n"
"""A lock file's content while bubblewrap may have made a folder at its path."""


def _mark(lock: int) -> None:
    """Note in the (shared-locked) lock file that a folder placeholder may exist: written
    before bubblewrap makes it, so a kill at any moment after leaves the mark."""
    with contextlib.suppress(OSError):
        if os.pread(lock, len(_MARK), 0) != _MARK:
            os.pwrite(lock, _MARK, 0)


def _left_folder(item: ProtectedPath, lock: int | None) -> bool:
    """A marked empty folder: a placeholder a killed process left (see the module docstring)."""
    if lock is None or item.seed is not None:
        return False
    try:
        if os.pread(lock, len(_MARK), 0) != _MARK or item.path.is_symlink():
            return False
        with os.scandir(item.path) as entries:
            return next(entries, None) is None
    except OSError:
        return False


def _remove(item: ProtectedPath, lock: int, tries: int = 10) -> None:
    """Remove ``item`` if it is still as a placeholder leaves it (under its exclusive lock).
    The folder mark goes too unless it is still mounted: gone, or filled by someone since, it
    is no placeholder any more."""
    for attempt in range(tries):
        try:
            if item.path.is_dir() and not item.path.is_symlink():
                item.path.rmdir()  # fails (kept) unless empty
            elif item.seed is not None and item.path.read_bytes() == item.seed:
                item.path.unlink()
            break
        except OSError as exc:
            if exc.errno != errno.EBUSY:
                break  # not empty: kept, as what it is now
            if attempt + 1 == tries:
                return  # really in use: kept, and still marked
            time.sleep(0.02)  # a mount from a sandbox that is still going away
    with contextlib.suppress(OSError):
        os.ftruncate(lock, 0)
