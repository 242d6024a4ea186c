"""Discovery: every ecosystem's checks for a project, and the merge with settings entries."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from zengine_jupyter.verify.discovery._project import MAX_DEPTH, scan_project
from zengine_jupyter.verify.discovery.ecosystems import ECOSYSTEMS

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from pathlib import Path

    from zengine_jupyter.protocol import CheckSpec

__all__ = ["discover_checks", "discover_checks_sync", "merge_checks"]


def discover_checks_sync(root: Path, max_depth: int = MAX_DEPTH) -> list[CheckSpec]:
    """The checks ``root``'s build files declare (blocking; reads files, runs nothing).

    Ids are unique; the order is by ecosystem, then folder (shallow first).
    """
    project = scan_project(root, max_depth)
    checks: list[CheckSpec] = []
    seen: set[str] = set()
    for discover in ECOSYSTEMS.values():
        for check in discover(project):
            if check.id not in seen:
                seen.add(check.id)
                checks.append(check)
    return checks


async def discover_checks(root: Path, max_depth: int = MAX_DEPTH) -> list[CheckSpec]:
    """:func:`discover_checks_sync` on a worker thread."""
    return await asyncio.to_thread(discover_checks_sync, root, max_depth)


def merge_checks(
    discovered: Sequence[CheckSpec], configured: Iterable[CheckSpec], *, trusted: bool = True
) -> list[CheckSpec]:
    """Discovered checks with ``[[verification.checks]]`` entries applied.

    An entry with a discovered check's id replaces it in place; any other entry is added
    at the end. When the project is not trusted, project-defined entries are withheld
    (pass only the project's entries here, or filter before: user-level entries are the
    caller's to add). Entries are marked ``source="settings"``.
    """
    if not trusted:
        return list(discovered)
    entries = {c.id: c.model_copy(update={"source": "settings"}) for c in configured}
    merged = [entries.pop(c.id, c) for c in discovered]
    return merged + list(entries.values())
