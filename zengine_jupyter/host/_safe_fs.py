"""File IO that never follows a symlink it did not resolve: the other half of the resolver.

Every folder on the way to a file is opened from ``/`` one name at a time with
``O_DIRECTORY | O_NOFOLLOW`` (``O_PATH`` on Linux, so a folder we may only traverse works),
each relative to the previous folder's descriptor. The file itself is then opened, created,
renamed or removed relative to its folder's descriptor with ``O_NOFOLLOW``. A path from
:func:`~zengine_jupyter.host._paths.resolve_path` has no symlink in it, so a symlink met on the
way was swapped in after the gate decided: the call fails with a :class:`PathError` (or, for a
restore, the symlink is replaced by a real folder, as ``git checkout`` does) and nothing is
written through it.

A written file goes to a temporary name in the same folder (``O_CREAT | O_EXCL |
O_NOFOLLOW``), is synced when asked, then renamed over the target, so readers see the old or
the new content, never half. An existing file keeps its permission bits; a new one is created
``0o666`` (``0o777`` executable) and the kernel applies the process umask, like any editor.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from zengine_jupyter.host._paths import display_path
from zengine_jupyter.protocol import PathError

if TYPE_CHECKING:
    from pathlib import Path
    from types import TracebackType

__all__ = ["Directories", "WriteOptions", "describe_os_error"]

_DIR_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_RETRIES = 3
_CACHED_FOLDERS = 64
"""Folder descriptors a :class:`Directories` keeps open (least recently used closed)."""


@dataclass(frozen=True)
class WriteOptions:
    """How :meth:`Directories.write_bytes` writes."""

    mode: int | None = None
    """Permission bits to set; None keeps an existing file's (see ``executable``)."""
    new_mode: int = 0o666
    """A new file's mode before the umask (``0o777`` for an executable)."""
    executable: bool | None = None
    """Restore: set (True) or clear (False) the exec bits of an existing file's mode."""
    sync: bool = True
    create_parents: bool = False
    restoring: bool = False
    """Restore (as ``git checkout``): a symlink on the way becomes a real folder, a symlink
    at the name is replaced; otherwise either refuses the write."""

    def adjust(self, mode: int) -> int:
        if self.executable is None:
            return mode
        if self.executable:
            return mode | ((mode & 0o444) >> 2)
        return mode & ~0o111


class Directories:
    """Open folder descriptors for one piece of work (a call, a restore), reused by path.

    ``root`` only shapes messages (paths inside it are shown relative). Use as a context
    manager; every descriptor is closed on exit. Not shared between threads at once.
    """

    def __init__(self, root: Path | None = None) -> None:
        self.root = root
        self._fds: OrderedDict[Path, int] = OrderedDict()

    def __enter__(self) -> Directories:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        fds, self._fds = self._fds, OrderedDict()
        for fd in fds.values():
            with contextlib.suppress(OSError):
                os.close(fd)

    def shown(self, path: Path) -> str:
        return display_path(path, self.root) if self.root is not None else str(path)

    # ------------------------------------------------------------------ folders
    def folder(self, path: Path, *, create: bool = False, replace_symlinks: bool = False) -> int:
        """A descriptor of the folder ``path`` (absolute, resolved), opened without following
        any symlink. ``create`` makes missing folders; ``replace_symlinks`` swaps a symlink
        found on the way for a real folder (restore only). Raises :class:`PathError`."""
        if not path.is_absolute():
            raise PathError(f"{path} is not an absolute path")
        fd = self._fds.get(path)
        if fd is not None:
            self._fds.move_to_end(path)
            return fd
        if path == path.parent:
            fd = os.open("/", _DIR_FLAGS)
        else:
            parent = self.folder(path.parent, create=create, replace_symlinks=replace_symlinks)
            fd = self._open_child(parent, path, create=create, replace_symlinks=replace_symlinks)
        self._fds[path] = fd
        if len(self._fds) > _CACHED_FOLDERS:  # a walk over many folders: keep the recent ones
            _, old = self._fds.popitem(last=False)
            os.close(old)
        return fd

    def _open_child(self, parent: int, path: Path, *, create: bool, replace_symlinks: bool) -> int:
        name = path.name
        for _ in range(_RETRIES):
            try:
                return os.open(name, _DIR_FLAGS, dir_fd=parent)
            except FileNotFoundError:
                if not create:
                    raise PathError(f"{self.shown(path)} does not exist") from None
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o777, dir_fd=parent)
            except (NotADirectoryError, OSError) as exc:
                if exc.errno not in (errno.ENOTDIR, errno.ELOOP):
                    raise describe_os_error(exc, self.shown(path)) from None
                info = _lstat(parent, name)
                if info is None:
                    continue  # gone meanwhile: try again
                if not stat.S_ISLNK(info.st_mode):
                    raise PathError(
                        f"{self.shown(path)} is a file, not a folder: nothing can be under it"
                    ) from None
                if not replace_symlinks:
                    raise PathError(
                        f"path changed while in use: {self.shown(path)} is now a symlink; "
                        "not followed"
                    ) from None
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(name, dir_fd=parent)
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o777, dir_fd=parent)
        raise PathError(f"{self.shown(path)} kept changing while in use; not touched")

    # ------------------------------------------------------------------ files
    def lstat(self, path: Path) -> os.stat_result | None:
        """``lstat`` of ``path`` through its folder (None when missing). A symlink or a file
        on the way is a :class:`PathError`."""
        return _lstat(self.folder(path.parent), path.name)

    def open_regular(self, path: Path) -> tuple[int, os.stat_result]:
        """Open a regular file for reading, without following a symlink (descriptor, fstat)."""
        shown = self.shown(path)
        parent = self.folder(path.parent)
        try:
            fd = os.open(path.name, _READ_FLAGS, dir_fd=parent)
        except FileNotFoundError:
            raise PathError(f"{shown} does not exist") from None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise PathError(
                    f"path changed while in use: {shown} is now a symlink; not read"
                ) from None
            raise describe_os_error(exc, shown) from None
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            if stat.S_ISDIR(info.st_mode):
                raise PathError(f"{shown} is a folder: list it with Glob or Bash ls")
            raise PathError(f"{shown} is not a regular file (a pipe, socket or device): not read")
        os.set_blocking(fd, True)
        return fd, info

    def read_bytes(self, path: Path) -> tuple[bytes, os.stat_result]:
        """The whole content of a regular file, and its fstat."""
        fd, info = self.open_regular(path)
        with os.fdopen(fd, "rb") as handle:
            return handle.read(), info

    def write_bytes(
        self, path: Path, data: bytes, options: WriteOptions | None = None
    ) -> os.stat_result:
        """Replace ``path`` with ``data`` in one step (temp file, then rename), as
        ``options`` say. Returns the new file's ``lstat``."""
        opts = options or WriteOptions()
        shown = self.shown(path)
        parent = self.folder(
            path.parent, create=opts.create_parents, replace_symlinks=opts.restoring
        )
        current = _lstat(parent, path.name)
        mode = opts.mode
        if current is not None:
            if stat.S_ISDIR(current.st_mode):
                raise PathError(f"{shown} is a folder")
            if stat.S_ISLNK(current.st_mode):
                if not opts.restoring:
                    raise PathError(
                        f"path changed while in use: {shown} is now a symlink; not written"
                    )
            elif mode is None:
                mode = opts.adjust(stat.S_IMODE(current.st_mode))
        tmp = f".zengine-{secrets.token_hex(6)}.tmp"
        new_mode = 0o600 if mode is not None else opts.new_mode
        try:
            fd = os.open(tmp, _CREATE_FLAGS, new_mode, dir_fd=parent)
        except OSError as exc:
            raise describe_os_error(exc, shown) from None
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                if mode is not None:
                    os.fchmod(fd, mode)
                if opts.sync:
                    os.fsync(fd)
            finally:
                os.close(fd)
            os.rename(tmp, path.name, src_dir_fd=parent, dst_dir_fd=parent)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=parent)
            raise describe_os_error(exc, shown) from None
        return os.stat(path.name, dir_fd=parent, follow_symlinks=False)

    def write_symlink(self, path: Path, target: str) -> None:
        """Make ``path`` a symlink to ``target`` (replacing a file; used by restore)."""
        parent = self.folder(path.parent, create=True, replace_symlinks=True)
        tmp = f".zengine-{secrets.token_hex(6)}.tmp"
        try:
            os.symlink(target, tmp, dir_fd=parent)
            os.rename(tmp, path.name, src_dir_fd=parent, dst_dir_fd=parent)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=parent)
            raise describe_os_error(exc, self.shown(path)) from None

    def remove(self, path: Path, *, up_to: Path) -> bool:
        """Delete the file (or symlink) ``path``, then the folders it leaves empty, stopping
        below ``up_to``. A symlink on the way means the file is not in that folder any more:
        nothing is removed (False)."""
        try:
            parent = self.folder(path.parent)
        except PathError:
            return False
        try:
            os.unlink(path.name, dir_fd=parent)
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise describe_os_error(exc, self.shown(path)) from None
        folder = path.parent
        while folder != up_to and up_to in folder.parents:
            fd = self._fds.pop(folder, None)
            if fd is not None:
                os.close(fd)
            try:
                os.rmdir(folder.name, dir_fd=self.folder(folder.parent))
            except OSError:
                break
            folder = folder.parent
        return True


def _lstat(parent: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=parent, follow_symlinks=False)
    except FileNotFoundError:
        return None


def describe_os_error(exc: OSError, shown: str) -> PathError:
    """An ``OSError`` on ``shown`` as a :class:`PathError` the model can act on."""
    reasons = {
        errno.ENAMETOOLONG: "the name is too long for the filesystem",
        errno.ENOTDIR: "a part of the path is a file, not a folder",
        errno.EISDIR: "it is a folder",
        errno.EACCES: "permission denied",
        errno.EPERM: "operation not permitted",
        errno.ENOSPC: "the disk is full",
        errno.EDQUOT: "the disk quota is exceeded",
        errno.EROFS: "the filesystem is read-only",
        errno.ELOOP: "a symlink is in the way (not followed)",
        errno.ENOTEMPTY: "a folder with files is in the way",
        errno.EEXIST: "something is in the way",
    }
    reason = reasons.get(exc.errno or 0, exc.strerror or str(exc))
    return PathError(f"{shown}: {reason}")
