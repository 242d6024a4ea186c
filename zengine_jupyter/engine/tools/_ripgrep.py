"""Grep's fast path: ripgrep narrows the listed files to those that may match.

The engine's own listing still decides which files Grep sees (ignore rules, symlinks, the
Read rules and the left-out count: ``_listing.py``), and Python's ``re`` still decides every
line shown (``_search.py``), so the output is what it was without ripgrep. ripgrep only reads
the listed files, given by name (``--no-config``; no ignore rule of its own applies to files
named on its command line), and names those with a matching line; only those are read again
in Python. It searches every file as text (``--text``: the NUL check stays Python's) with
``$`` before CRLF (``--crlf``), as Python sees a line.

The listing feeds :class:`RipgrepSearch` while it walks: each batch of
:data:`BATCH_FILES` listed files is searched as soon as it is listed, so ripgrep reads the
first files while the walk lists the rest (a 20,000-file Grep waited for the whole walk, then
for ripgrep: the two costs added up). At most :data:`RUNNING` runs at once.

Without ``rg`` on PATH, for a pattern ripgrep's syntax does not take (look-around,
back-references), when it fails on a file (vanished, unreadable) or takes longer than
:data:`TIMEOUT_S` (a file swapped for a pipe after the listing), the answer is None and every
listed file is searched in Python. Where both accept a pattern they agree on what matches in UTF-8
text, with known gaps: ``^`` or ``$`` beside a line break only Python's ``splitlines`` knows
(a lone ``\r``, a form feed), ``.`` over invalid UTF-8, and the two syntaxes' rare
differences (``[[:alpha:]]`` is a class in ripgrep, a set of characters in Python).
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING

from zengine_jupyter.host import RunOptions, run, which
from zengine_jupyter.protocol import ProcessError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from pathlib import Path

__all__ = ["BATCH_FILES", "RUNNING", "TIMEOUT_S", "RipgrepSearch", "find_ripgrep",
           "ripgrep_candidates"]  # fmt: skip

TIMEOUT_S = 20.0
BATCH_FILES = 4096
"""Files per ripgrep run while the walk goes on (each run costs a process start)."""
RUNNING = 2
_ARGS_BYTES = 256 * 1024
"""Paths per ripgrep run, well under the kernel's limit on a command line."""


def find_ripgrep() -> str | None:
    """The ``rg`` program on PATH (its absolute entries: ``host.which``), or None."""
    return which("rg")


class RipgrepSearch:
    """ripgrep runs over files fed in batches; :meth:`found` gathers what they matched.

    Feed and await on the event loop's thread; files are real paths, absolute."""

    def __init__(
        self,
        rg: str,
        base: Path,
        pattern: str,
        *,
        case_insensitive: bool,
        on_found: Callable[[set[str]], None] | None = None,
    ) -> None:
        self._head = [rg, "--no-config", "--files-with-matches", "--null", "--text", "--crlf",
                      "--no-messages", "--max-filesize", "8M",  # Python reads no larger file
                      *(["--ignore-case"] if case_insensitive else []),
                      "--regexp", pattern, "--"]  # fmt: skip
        self._base = base
        self._prefix = f"{base}{os.sep}"
        self._batch: dict[str, str] = {}
        self._size = 0
        self._runs: list[asyncio.Task[set[str] | None]] = []
        self._slots = asyncio.Semaphore(RUNNING)
        self._on_found = on_found

    @classmethod
    def start(
        cls,
        base: Path,
        pattern: str,
        *,
        case_insensitive: bool,
        on_found: Callable[[set[str]], None] | None = None,
    ) -> RipgrepSearch | None:
        """A search, or None without ripgrep on PATH. ``on_found`` is given each run's
        candidates as soon as that run ends (on the loop), so they can be read meanwhile."""
        rg = find_ripgrep()
        if rg is None:
            return None
        return cls(rg, base, pattern, case_insensitive=case_insensitive, on_found=on_found)

    def feed(self, files: Iterable[str], *, batch: int | None = None) -> None:
        """Search ``files``; a full batch (``batch`` files, :data:`BATCH_FILES` by default)
        starts its run now."""
        batch = batch or BATCH_FILES
        for path in files:
            name = path.removeprefix(self._prefix)
            if name in self._batch:
                continue
            self._batch[name] = path
            self._size += len(name) + 1
            if self._size > _ARGS_BYTES or len(self._batch) >= batch:
                self._launch()

    async def found(self) -> set[str] | None:
        """The fed files with a line ripgrep matches; None: unknown (search them all)."""
        if self._batch:
            self._launch()
        try:
            results = await asyncio.gather(*self._runs)
        finally:
            self.cancel()
        if any(r is None for r in results):
            return None
        return set().union(*(r for r in results if r is not None))

    def cancel(self) -> None:
        """Stop the runs still going (a walk that failed: nobody will ask what they found)."""
        for task in self._runs:
            task.cancel()

    def _launch(self) -> None:
        batch, self._batch, self._size = self._batch, {}, 0
        self._runs.append(asyncio.ensure_future(self._run(batch)))

    async def _run(self, shown: dict[str, str]) -> set[str] | None:
        async with self._slots:
            try:
                done = await run(
                    [*self._head, *shown], RunOptions(cwd=self._base, timeout_s=TIMEOUT_S)
                )
            except ProcessError:  # includes the timeout
                return None
        if done.returncode not in (0, 1):
            return None  # the pattern is not ripgrep's syntax, or a file could not be read
        found: set[str] = set()
        for raw in done.stdout.split(b"\0"):
            if raw:
                path = shown.get(os.fsdecode(raw))
                if path is None:
                    return None  # not a name we gave: trust none of it
                found.add(path)
        if self._on_found is not None:
            self._on_found(found)
        return found


async def ripgrep_candidates(
    files: list[str], base: Path, pattern: str, *, case_insensitive: bool
) -> set[str] | None:
    """Which of ``files`` (real paths, absolute) hold a line ripgrep matches; None: unknown."""
    search = RipgrepSearch.start(base, pattern, case_insensitive=case_insensitive)
    if search is None or not files:
        return None
    search.feed(files, batch=len(files) + 1)  # all at once: only the size limit splits them
    return await search.found()
