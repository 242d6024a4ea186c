"""Checkpoint retention: remove snapshots past an age or a size budget (disk stays bounded).

The newest snapshot is always kept. Older ones go when they are older than
``max_age_days``, then, while the shadow repository is over ``max_size_bytes``, the oldest of
the rest (the cut is chosen from ``git rev-list --disk-usage`` of the snapshots kept, so one
collection is enough). Because snapshots are chained on one ref, the kept ones are
re-created on a chain starting at the oldest kept: see ``_expiry.py`` for how ids written in
chat logs stay valid (or are reported as expired). Unreachable objects are then pruned.

Nothing here runs on the snapshot path: :func:`needs_collection` is a ``stat`` walk of the
object folder plus, for the age, one ``git log`` of the chain's root.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from zengine_jupyter.host.checkpoint._expiry import ChainEntry, read_chain, record_expired
from zengine_jupyter.host.checkpoint._git import CHECKPOINT_REF
from zengine_jupyter.protocol import CheckpointGc

if TYPE_CHECKING:
    from pathlib import Path

    from zengine_jupyter.host.checkpoint._shadow import ShadowRepository

__all__ = ["Retention", "collect_garbage", "format_size", "needs_collection", "repository_size"]

_MIB = 1024 * 1024


@dataclass(frozen=True)
class Retention:
    """How long and how much: ``checkpoints.max_age_days`` and ``checkpoints.max_size_mb``."""

    max_age_days: int = 30
    max_size_bytes: int = 2048 * _MIB

    @classmethod
    def from_settings(cls, max_age_days: int, max_size_mb: int) -> Retention:
        return cls(max_age_days=max_age_days, max_size_bytes=max_size_mb * _MIB)


def format_size(size: int) -> str:
    """``1.4 GB``, ``320 MB``, ``12 KB`` (powers of 1024, as the budget's MiB)."""
    value = float(size)
    for unit in ("bytes", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit in ("bytes", "KB") else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"  # pragma: no cover - the loop returns


def repository_size(git_dir: Path, *, objects_only: bool = False) -> int:
    """Bytes under the shadow repository (or only its ``objects/``); blocking, run in a thread."""
    top = git_dir / "objects" if objects_only else git_dir
    total = 0
    stack = [str(top)]
    while stack:
        try:
            with os.scandir(stack.pop()) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    elif entry.is_file(follow_symlinks=False):
                        total += entry.stat(follow_symlinks=False).st_size
        except FileNotFoundError:
            continue
    return total


async def needs_collection(
    repo: ShadowRepository, retention: Retention, *, check_age: bool = True
) -> int | None:
    """The repository's size when a collection is due (over budget, or, with ``check_age``, a
    snapshot past the age limit), else None. Cheap: no object is read."""
    if not (repo.paths.git_dir / "HEAD").exists():
        return None
    size = await asyncio.to_thread(repository_size, repo.paths.git_dir)
    if size > retention.max_size_bytes:
        return size
    if check_age:
        out = await repo.git("log", "--max-parents=0", "--format=%ct", CHECKPOINT_REF, check=False)
        times = [int(t) for t in out.split() if t.isdigit()]
        cutoff = datetime.now(UTC) - timedelta(days=retention.max_age_days)
        if times and datetime.fromtimestamp(min(times), UTC) < cutoff:
            # the oldest is past the limit: due unless it is also the newest (always kept)
            count = await repo.git("rev-list", "--count", CHECKPOINT_REF, check=False)
            if int(count.strip() or 0) > 1:
                return size
    return None


async def collect_garbage(
    repo: ShadowRepository, retention: Retention, *, now: datetime | None = None
) -> CheckpointGc:
    """Apply ``retention`` to ``repo`` now (holds the repository lock throughout)."""
    now = now or datetime.now(UTC)
    git_dir = repo.paths.git_dir
    async with repo.lock():
        size_before = await asyncio.to_thread(repository_size, git_dir)
        chain = await read_chain(repo)
        cutoff = (now - timedelta(days=retention.max_age_days)).timestamp()
        keep = 1 if chain else 0
        while keep < len(chain) and chain[keep].ctime >= cutoff:
            keep += 1
        over = size_before > retention.max_size_bytes
        if over and keep > 1:
            objects = await asyncio.to_thread(repository_size, git_dir, objects_only=True)
            room = retention.max_size_bytes - (size_before - objects)
            keep = await _fit(repo, chain[:keep], room)
        if keep < len(chain):
            await _rewrite(repo, chain[:keep], chain[keep:], now)
        size_after = await asyncio.to_thread(repository_size, git_dir)
    return CheckpointGc(
        project=str(repo.root),
        kept=keep,
        removed=len(chain) - keep,
        size_before=size_before,
        size_after=size_after,
        budget=retention.max_size_bytes,
        max_age_days=retention.max_age_days,
        over_budget=over,
        still_over_budget=size_after > retention.max_size_bytes,
    )


async def _disk_usage(repo: ShadowRepository, snapshots: list[ChainEntry]) -> int:
    """Bytes the objects of these snapshots take now (shared objects counted once)."""
    out = await repo.git(
        "rev-list", "--objects", "--no-walk", "--disk-usage", *(s.commit for s in snapshots)
    )
    return int(out.decode().strip() or 0)


async def _fit(repo: ShadowRepository, newest_first: list[ChainEntry], room: int) -> int:
    """How many of the newest snapshots fit in ``room`` bytes (at least 1): a binary search."""
    low, high = 1, len(newest_first)
    while low < high:
        middle = (low + high + 1) // 2
        if await _disk_usage(repo, newest_first[:middle]) <= room:
            low = middle
        else:
            high = middle - 1
    return low


async def _rewrite(
    repo: ShadowRepository, kept: list[ChainEntry], dropped: list[ChainEntry], now: datetime
) -> None:
    """Re-create ``kept`` (newest first) on a chain of their own, forget ``dropped``, prune."""
    git_dir = repo.paths.git_dir
    record_expired(git_dir, [i for e in dropped for i in (e.origin, e.commit)], now)
    parent: str | None = None
    for entry in reversed(kept):
        date = f"{entry.ctime} +0000"
        env = {**repo._env, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
        out = await repo.git(
            "commit-tree", entry.tree, *(["-p", parent] if parent else []), "-F", "-",
            stdin=entry.message(entry.origin).encode(), env=env,
        )  # fmt: skip
        parent = out.decode().strip()
    assert parent is not None
    await repo.git("update-ref", CHECKPOINT_REF, parent, kept[0].commit)
    await repo.git("reflog", "expire", "--expire=now", "--expire-unreachable=now", "--all")
    await repo.git("gc", "--prune=now", "--quiet")
