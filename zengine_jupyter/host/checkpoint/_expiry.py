"""Checkpoint ids retention changed or removed: what `ShadowRepository.get` falls back on.

Snapshots are chained on one ref, so removing the oldest ones means re-creating the kept ones
on a shorter chain, which gives them new commit ids. Ids written in chat logs stay usable:

- a re-created snapshot carries the id it was first created with (``origin`` in its
  ``zengine:`` metadata line), and a lookup that misses finds it by that id;
- the ids of removed snapshots (first and current) are listed in ``zengine-expired`` with the
  day they were removed, so asking for one raises :class:`CheckpointExpiredError` naming the
  date, never a bare "no such checkpoint". Lines older than :data:`EXPIRED_KEPT_DAYS` are
  dropped at the next collection (the id then reads as unknown).
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from zengine_jupyter.config import write_private
from zengine_jupyter.host.checkpoint._git import CHECKPOINT_REF
from zengine_jupyter.protocol import CheckpointExpiredError

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from zengine_jupyter.host.checkpoint._shadow import ShadowRepository

__all__ = [
    "EXPIRED_KEPT_DAYS",
    "ChainEntry",
    "expired_file",
    "find_moved",
    "read_chain",
    "record_expired",
]

EXPIRED_KEPT_DAYS = 365
"""How long the list of removed ids remembers one."""

_ORIGIN = re.compile(r'"origin": "([0-9a-f]{40})"')


class ChainEntry:
    """One snapshot on the chain as stored: commit, tree, time, title and metadata."""

    __slots__ = ("commit", "ctime", "meta", "title", "tree")

    def __init__(self, commit: str, tree: str, ctime: int, body: str) -> None:
        self.commit = commit
        self.tree = tree
        self.ctime = ctime
        self.title = body.split("\n", 1)[0]
        self.meta: dict[str, object] = {}
        for line in body.splitlines():
            if line.startswith("zengine: "):
                self.meta = json.loads(line.removeprefix("zengine: "))

    @property
    def origin(self) -> str:
        """The id this snapshot was first created with."""
        origin = self.meta.get("origin")
        return origin if isinstance(origin, str) else self.commit

    def message(self, origin: str) -> str:
        meta = {**self.meta, "origin": origin}
        return f"{self.title}\n\nzengine: {json.dumps(meta)}\n"


async def read_chain(repo: ShadowRepository) -> list[ChainEntry]:
    """Every snapshot on the ref, newest first (empty before the first snapshot)."""
    if not (repo.paths.git_dir / "HEAD").exists():
        return []
    if not await repo.git("rev-parse", "-q", "--verify", CHECKPOINT_REF, check=False):
        return []
    out = await repo.git("log", "--format=%H%x1f%T%x1f%ct%x1f%B%x1e", CHECKPOINT_REF)
    entries = []
    for raw in out.decode("utf-8", "replace").split("\x1e"):
        if raw.strip():
            commit, tree, ctime, body = raw.strip("\n").split("\x1f", 3)
            entries.append(ChainEntry(commit, tree, int(ctime), body))
    return entries


def expired_file(git_dir: Path) -> Path:
    return git_dir / "zengine-expired"


def record_expired(git_dir: Path, ids: Iterable[str], now: datetime) -> None:
    """Remember removed ids (and forget those removed over a year ago); atomic rewrite."""
    path = expired_file(git_dir)
    horizon = now - timedelta(days=EXPIRED_KEPT_DAYS)
    lines = [line for line in _read_lines(path) if _day(line) >= horizon]
    day = now.strftime("%Y-%m-%d")
    lines += [f"{commit} {day}" for commit in dict.fromkeys(ids)]
    tmp = path.with_suffix(".tmp")
    write_private(tmp, "".join(line + "\n" for line in lines))
    tmp.replace(path)


async def find_moved(repo: ShadowRepository, wanted: str) -> str | None:
    """The current id of the snapshot first created as ``wanted`` (full or abbreviated), or
    None when no snapshot was; raises :class:`CheckpointExpiredError` when it was removed."""
    if len(wanted) >= 4:
        chain_text = ""
        if (repo.paths.git_dir / "HEAD").exists():
            out = await repo.git("log", "--format=%H %B%x1e", CHECKPOINT_REF, check=False)
            chain_text = out.decode("utf-8", "replace")
        hits = {
            entry.strip().split(" ", 1)[0]
            for entry in chain_text.split("\x1e")
            if any(o.startswith(wanted) for o in _ORIGIN.findall(entry))
        }
        if len(hits) == 1:
            return hits.pop()
        for line in _read_lines(expired_file(repo.paths.git_dir)):
            commit, _, day = line.partition(" ")
            if commit.startswith(wanted):
                raise CheckpointExpiredError(
                    f"checkpoint {wanted[:12]} of {repo.root} was removed by checkpoint "
                    f"retention on {day}",
                    hint="its files can no longer be restored: rewind only the conversation, "
                    "or pick a later message (`zengine checkpoints list SESSION`); retention "
                    "is set by checkpoints.max_age_days and checkpoints.max_size_mb",
                )
    return None


def _read_lines(path: Path) -> list[str]:
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        return []
    return [line for line in text.splitlines() if line.strip()]


def _day(line: str) -> datetime:
    try:
        return datetime.strptime(line.split(" ", 1)[1], "%Y-%m-%d").replace(tzinfo=UTC)
    except (IndexError, ValueError):
        return datetime.min.replace(tzinfo=UTC)
