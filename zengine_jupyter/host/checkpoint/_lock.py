"""An inter-process lock on one shadow repository (several kernels may share a project)."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
from typing import TYPE_CHECKING

from zengine_jupyter.config import private_dir
from zengine_jupyter.protocol import CheckpointError

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from pathlib import Path

__all__ = ["repository_lock"]


@contextlib.asynccontextmanager
async def repository_lock(path: Path, timeout_s: float = 60.0) -> AsyncIterator[None]:
    """Hold an exclusive ``flock`` on ``path`` without blocking the event loop."""
    private_dir(path.parent)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if loop.time() > deadline:
                    raise CheckpointError(
                        f"the checkpoint repository {path.parent} stayed busy for {timeout_s:g} s",
                        hint="another kernel or zengine command is snapshotting this project; "
                        "try again when it is done",
                    ) from None
                await asyncio.sleep(0.02)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
