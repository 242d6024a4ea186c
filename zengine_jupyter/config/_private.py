"""Private files and folders: what the engine keeps for a user is theirs alone on a shared host.

Every folder the engine creates for its data is 0700 and every file 0600 whatever the umask (a
hub's single-user servers usually run with 022), and the data folder itself is kept 0700, so
anything below it is out of other users' reach even if one file's mode slips.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path
from typing import IO, Literal

from zengine_jupyter.config._paths import data_dir, user_config_dir

__all__ = [
    "PRIVATE_DIR_MODE",
    "PRIVATE_FILE_MODE",
    "is_private_place",
    "open_private",
    "private_dir",
    "private_temp_dir",
    "tighten",
    "write_private",
]

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600


def tighten(path: Path) -> None:
    """Take group and others' permissions off ``path`` if it is ours (a folder or file that an
    older version, a copy or an editor left open). Best effort: an error is ignored."""
    with contextlib.suppress(OSError):
        st = path.lstat()
        if st.st_uid == os.getuid() and st.st_mode & 0o077 and not stat.S_ISLNK(st.st_mode):
            path.chmod(st.st_mode & 0o7700)


def _data_root_of(path: Path) -> Path | None:
    """The data folder if ``path`` is inside it (or is it)."""
    try:
        root = data_dir()
    except Exception:  # a broken $ZENGINE_HOME is reported where settings load
        return None
    return root if path == root or root in path.parents else None


def is_private_place(path: Path) -> bool:
    """Whether ``path`` is in the user's data folder or user settings folder (kept private)."""
    for find in (data_dir, user_config_dir):
        try:
            root = find()
        except Exception:  # a broken $ZENGINE_HOME is reported where settings load
            continue
        if root in Path(path).parents:
            return True
    return False


def private_dir(path: Path) -> Path:
    """``mkdir -p path`` where every folder it creates is 0700; the data folder, when ``path``
    is in it, is made 0700 too. Returns ``path``."""
    path = Path(path)
    missing: list[Path] = []
    probe = path
    while not probe.exists() and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(PRIVATE_DIR_MODE)
        except FileExistsError:
            continue
        folder.chmod(PRIVATE_DIR_MODE)  # mkdir's mode went through the umask
    root = _data_root_of(path)
    if root is not None:
        tighten(root)
    return path


def open_private(path: Path, mode: Literal["wb", "ab"] = "wb") -> IO[bytes]:
    """Open ``path`` for writing (``wb`` truncates, ``ab`` appends), created 0600; an existing
    file is tightened to 0600."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC | (os.O_TRUNC if mode == "wb" else os.O_APPEND)
    fd = os.open(path, flags, PRIVATE_FILE_MODE)
    try:
        os.fchmod(fd, PRIVATE_FILE_MODE)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, mode, buffering=-1)


def write_private(path: Path, data: bytes | str) -> None:
    """Write ``data`` (text as UTF-8) to ``path``, created or tightened to 0600."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    with open_private(path, "wb") as handle:
        handle.write(raw)


def private_temp_dir() -> Path:
    """This user's own folder in the temporary folder (``$TMPDIR``, else ``/tmp``):
    ``zengine-<uid>``, 0700, so what the agent's commands write there (with the umask's 0644)
    is out of other users' reach. The name is predictable, so an existing one is used only when
    it is a real folder (not a link) owned by this user, tightened to 0700; otherwise (another
    user planted it) a fresh ``mkdtemp`` folder is used."""
    base = Path(tempfile.gettempdir())
    uid = os.getuid()
    path = base / f"zengine-{uid}"
    with contextlib.suppress(FileExistsError):
        path.mkdir(PRIVATE_DIR_MODE)
    with contextlib.suppress(OSError):
        st = path.lstat()
        if stat.S_ISDIR(st.st_mode) and st.st_uid == uid:
            if st.st_mode & 0o077:
                path.chmod(PRIVATE_DIR_MODE)
            return path
    return Path(tempfile.mkdtemp(prefix=f"zengine-{uid}-", dir=base))
