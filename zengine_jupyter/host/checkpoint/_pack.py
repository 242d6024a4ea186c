"""The first snapshot: every file read once, stored in one pack, and the index written by us.

``git add`` of a whole project writes one loose object file per file (the naive path costs
seconds on 20,000 files) and hashes each file with git's collision-detecting SHA-1, several
times slower than OpenSSL's. Here a worker thread reads the files, hashes and deflates them
into one pack (``_packfile.py``) and writes the shadow index from the stats taken when each
file was opened (``_index.py``). The next snapshot's ``git status`` then finds every file
unchanged by its stat alone, as after ``git add``. The trees go into the same pack
(``_trees.py``): ``git write-tree`` would write each as a loose file, 0.25-1.5 s for the 560
folders of the 20,000-file benchmark on this machine.

Files are opened through :class:`~zengine_jupyter.host._safe_fs.Directories` (no symlink
followed on the way; a symlink is stored as a link). A file that vanished, turned into a
folder or a special file since the listing is left out of this snapshot; one that grew past
the size limit is listed as not stored. A cancelled snapshot stops at the next file and
leaves no pack and no index behind.
"""

from __future__ import annotations

import asyncio
import errno
import os
import stat
import threading
import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path  # noqa: TC003 - used at run time (root / folder)
from typing import TYPE_CHECKING

from zengine_jupyter.host._safe_fs import Directories
from zengine_jupyter.host.checkpoint._index import IndexEntry, write_index
from zengine_jupyter.host.checkpoint._packfile import PackWriter
from zengine_jupyter.host.checkpoint._scan import MAX_FILE_BYTES
from zengine_jupyter.host.checkpoint._trees import write_trees
from zengine_jupyter.protocol import CheckpointError, NotStored, PathError

if TYPE_CHECKING:
    from zengine_jupyter.host.checkpoint._shadow import ShadowRepository

__all__ = ["FirstStore", "store_first"]

_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_BATCH_BYTES = 2 * 1024 * 1024
_BATCH_FILES = 256


@dataclass
class FirstStore:
    """What storing the first snapshot did, with the time of each step (for benchmarks)."""

    stored: int = 0
    not_stored: list[NotStored] = field(default_factory=list)
    tree: str | None = None
    """The root tree's id (hex), in the pack; None when no file was stored."""
    steps: dict[str, float] = field(default_factory=dict)


class _Reader:
    """Reads listed files without following a symlink on the way (one thread)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.dirs = Directories(root)
        self._folder = ("", -1)

    def read(self, rel: str) -> tuple[bytes, os.stat_result] | None:
        """The content git would store for ``rel`` and the stat taken before reading it
        (``b""`` when it is too large to store); None when it is not a file or link now."""
        folder, _, name = rel.rpartition("/")
        try:
            parent = self._parent(folder)
            fd = os.open(name, _READ_FLAGS, dir_fd=parent)
        except OSError as exc:
            return self._link(parent, name) if exc.errno == errno.ELOOP else None
        except PathError:
            return None  # a folder on the way became a symlink or a file: not in the project
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                return None  # a folder or special file now
            if info.st_size > MAX_FILE_BYTES:
                return b"", info
            data = os.read(fd, info.st_size + 1)
            if len(data) > info.st_size:  # it grows while we read: read to its end
                chunks = [data]
                while chunk := os.read(fd, 1 << 20):
                    chunks.append(chunk)
                data = b"".join(chunks)
            return data, info
        except OSError:
            return None
        finally:
            os.close(fd)

    def _parent(self, folder: str) -> int:
        if self._folder[0] != folder or self._folder[1] < 0:
            fd = self.dirs.folder(self.root / folder if folder else self.root)
            self._folder = (folder, fd)
        return self._folder[1]

    def _link(self, parent: int, name: str) -> tuple[bytes, os.stat_result] | None:
        try:
            info = os.stat(name, dir_fd=parent, follow_symlinks=False)
            if not stat.S_ISLNK(info.st_mode):
                return None
            return os.fsencode(os.readlink(name, dir_fd=parent)), info
        except OSError:
            return None

    def close(self) -> None:
        self.dirs.close()


async def store_first(repo: ShadowRepository, paths: list[str]) -> FirstStore:
    """Store ``paths`` (root-relative files from the listing) and write the shadow index."""
    stop = threading.Event()
    work = asyncio.ensure_future(asyncio.to_thread(_store, repo, paths, stop))
    try:
        return await asyncio.shield(work)
    except asyncio.CancelledError:
        stop.set()  # the thread cannot be cancelled: ask it to stop, and wait for it
        await asyncio.gather(work, return_exceptions=True)
        raise


def _store(repo: ShadowRepository, paths: list[str], stop: threading.Event) -> FirstStore:
    """Read on this thread, hash and deflate on another (zlib and hashlib let go of the GIL)."""
    result = FirstStore()
    started = time.perf_counter()
    reader = _Reader(repo.root)
    writer = PackWriter(repo.paths.git_dir / "objects" / "pack")
    rows: list[IndexEntry] = []

    def pack(batch: list[tuple[str, bytes, os.stat_result]]) -> None:
        for rel, data, info in batch:
            rows.append(IndexEntry(os.fsencode(rel), info, writer.add(data)))

    try:
        with ThreadPoolExecutor(1, thread_name_prefix="zengine-pack") as packer:
            pending: deque[Future[None]] = deque()
            batch: list[tuple[str, bytes, os.stat_result]] = []
            size = 0
            for rel in paths:
                if stop.is_set():
                    raise CheckpointError("the snapshot was cancelled")
                found = reader.read(rel)
                if found is None:
                    continue
                data, info = found
                if info.st_size > MAX_FILE_BYTES or len(data) > MAX_FILE_BYTES:
                    size_now = max(len(data), info.st_size)
                    result.not_stored.append(NotStored(path=rel, reason="too_large", size=size_now))
                    continue
                batch.append((rel, data, info))
                size += len(data)
                if size >= _BATCH_BYTES or len(batch) >= _BATCH_FILES:
                    pending.append(packer.submit(pack, batch))
                    batch, size = [], 0
                    while len(pending) > 2:  # at most two batches in memory
                        pending.popleft().result()
            pending.append(packer.submit(pack, batch))
            for job in pending:
                job.result()
        result.steps["read+hash+pack"] = time.perf_counter() - started
        if rows:
            started = time.perf_counter()
            result.tree = write_trees(rows, lambda data: writer.add(data, b"tree")).hex()
            result.steps["trees"] = time.perf_counter() - started
        started = time.perf_counter()
        writer.finish()
        result.steps["publish pack"] = time.perf_counter() - started
    except BaseException:
        writer.abort()
        raise
    finally:
        reader.close()
    started = time.perf_counter()
    write_index(repo.paths.index_file, rows)
    result.steps["index"] = time.perf_counter() - started
    result.stored = len(rows)
    return result
