"""Which files a search sees: git's view (ignores respected) when it can, else a walk."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
from pathlib import Path

from zengine_jupyter.config._glob import compile_glob
from zengine_jupyter.host._process import RunOptions, run
from zengine_jupyter.protocol._errors import ProcessError

__all__ = ["SKIPPED_FOLDERS", "compile_glob", "list_files"]

SKIPPED_FOLDERS = frozenset(
    {".git", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".ruff_cache",
     ".pytest_cache", ".ipynb_checkpoints", ".tox", "target", "dist", "build"}
)  # fmt: skip


async def list_files(folder: Path) -> list[Path]:
    """Files under ``folder``: tracked and untracked-but-not-ignored ones when it is inside a
    git work tree, else every file outside :data:`SKIPPED_FOLDERS`."""
    git = shutil.which("git")
    if git is not None:
        # Read-only: ls-files never writes the index; GIT_OPTIONAL_LOCKS=0 forbids refreshes.
        argv = [git, "ls-files", "-z", "-c", "-o", "--exclude-standard", "--deduplicate"]
        options = RunOptions(cwd=folder, env={"GIT_OPTIONAL_LOCKS": "0"}, timeout_s=60)
        with contextlib.suppress(ProcessError):
            done = await run(argv, options)
            if done.ok:
                return await asyncio.to_thread(_existing, folder, done.stdout)
    return await asyncio.to_thread(_walk, folder)


def _existing(folder: Path, listing: bytes) -> list[Path]:
    found = (folder / os.fsdecode(p) for p in listing.split(b"\0") if p)
    return [p for p in found if p.is_file()]


def _walk(folder: Path) -> list[Path]:
    files: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_FOLDERS)
        files.extend(Path(dirpath, name) for name in filenames)
    return files
