"""Grep's fast path for a folder: ripgrep walks it by itself while the engine lists it.

Handing ripgrep 20,000 listed names cost about as much as the walk it saved (each name is a
walk root of its own), so ripgrep now walks the folder with its own parallel walk, at the
same time as the engine's listing (``_listing.py``). Its flags keep it close to what the
listing enters: hidden files searched, ``.git`` and (outside a git work tree) the tool folders
skipped, ``.gitignore`` files honoured (in a git work tree or not, as the listing does), and
nothing of its own that could leave out a file the listing keeps (no ``.ignore``, no global,
parent or ``info/exclude`` ignore file, no config file). It never follows a symlink. ripgrep
reads a ``.rgignore`` whatever its flags say (short of leaving out ``.gitignore`` files too),
so when the listing saw one, the walk's answer is not used.

Its answer is only a set of names to read again, and each name is checked against the
listing (:meth:`RipgrepWalk.listed`) before anything is read or shown: a hit the listing did
not list (an ignored folder, a file the Read rules deny, a bare repository's internals,
anything ripgrep's rules let through that the engine's do not) is dropped. Symlinked files,
which the walk skips, are searched by name (``_ripgrep.py``). Where ripgrep's gitignore
reading leaves out a file the engine's keeps (a corner case the two read differently), a
match there is missed, as with the known gaps between the two regex engines.

The walk has no ``--max-filesize``: that limit stats every file, a fifth of ripgrep's time on
a 20,000-file project, and Python reads no file over 8 MiB anyway. A walk still running well
after the listing (:data:`WAIT_S`, :data:`WAIT_PER_FILE_S`: a folder of large data files) is
stopped. Then, and on any other trouble (an unreadable file or folder, a pattern ripgrep's
syntax does not take), the listed files are searched by name as before, large files left out.
"""

from __future__ import annotations

import asyncio
import sys
from typing import TYPE_CHECKING

from zengine_jupyter.engine.tools import _ripgrep
from zengine_jupyter.engine.tools._listing import SKIPPED_FOLDERS
from zengine_jupyter.engine.tools._ripgrep import find_ripgrep, ripgrep_candidates
from zengine_jupyter.host import RunOptions, open_process
from zengine_jupyter.protocol import ProcessError

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from zengine_jupyter.engine.tools._listing import Listing

__all__ = ["WAIT_PER_FILE_S", "WAIT_S", "RipgrepWalk", "walked_files"]

WAIT_S, WAIT_PER_FILE_S = 1.0, 50e-6
"""How long the walk may still run once the listing is done (20,000 files: 2 s) before the
listed files are searched by name instead (``--max-filesize`` then leaves out large files)."""
_CHUNK = 64 * 1024
_PAUSE = 0.005
"""Seconds between reads of ripgrep's output (it writes each name on its own); the wait ends
early when ripgrep exits, so the last names are read at once."""


class RipgrepWalk:
    """One ripgrep run over a folder, started at once. Its hits are held back until
    :meth:`listed` says which files the listing listed; from then on each listed hit is
    handed to ``on_hits`` as soon as ripgrep names it (so Python reads it while ripgrep still
    searches) and every other hit is dropped."""

    def __init__(self, argv: list[str], folder: Path, on_hits: Callable[[set[str]], None]) -> None:
        self._listed: set[str] | None = None
        self._waiting: list[str] = []
        self._kept: set[str] = set()
        self._on_hits = on_hits
        self._task = asyncio.ensure_future(self._run(argv, folder))

    @classmethod
    def start(
        cls,
        folder: Path,
        root: Path,
        pattern: str,
        *,
        case_insensitive: bool,
        on_hits: Callable[[set[str]], None],
    ) -> RipgrepWalk | None:
        """A walk of ``folder`` (the listing's rules as :func:`walk_files` picks them for
        ``root``), or None without ripgrep on PATH."""
        rg = find_ripgrep()
        if rg is None:
            return None
        top = root if folder == root or root in folder.parents else folder
        skip = () if (top / ".git").exists() else sorted(SKIPPED_FOLDERS - {".git"})
        argv = [rg, "--no-config", "--files-with-matches", "--null", "--text", "--crlf",
                "--no-messages", "--hidden", "--no-ignore-dot",
                "--no-ignore-global", "--no-ignore-parent", "--no-ignore-exclude",
                "--no-require-git",
                "--glob", "!.git", *[a for name in skip for a in ("--glob", f"!{name}/")],
                *(["--ignore-case"] if case_insensitive else []),
                "--regexp", pattern, "--", str(folder)]  # fmt: skip
        return cls(argv, folder, on_hits)

    def listed(self, files: set[str]) -> None:
        """The listed files (not symlinks) ripgrep's hits are checked against."""
        self._listed = files
        waiting, self._waiting = self._waiting, []
        self._check(waiting)

    async def hits(self) -> set[str] | None:
        """The listed files ripgrep found a matching line in; None: unknown (search the listed
        files another way). Call :meth:`listed` first."""
        return self._kept if await self._task else None

    async def stop(self) -> None:
        """Stop the run if it still goes, and wait until its process is gone."""
        self._task.cancel()
        await asyncio.wait([self._task])

    def _check(self, found: list[str]) -> None:
        """The per-hit check: only a file the listing listed goes on."""
        if self._listed is None:
            self._waiting += found
            return
        kept = {f for f in found if f in self._listed} - self._kept
        if kept:
            self._kept |= kept
            self._on_hits(kept)

    async def _run(self, argv: list[str], folder: Path) -> bool:
        options = RunOptions(cwd=folder)
        encoding, errors = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()
        try:
            async with asyncio.timeout(_ripgrep.TIMEOUT_S), open_process(argv, options) as proc:
                assert proc.stdout is not None
                exited = asyncio.ensure_future(proc.wait())
                rest = b""
                try:
                    while chunk := await proc.stdout.read(_CHUNK):
                        whole, _, rest = (rest + chunk).rpartition(b"\0")
                        if whole:  # the names as os.fsdecode gives them, all at once
                            self._check(whole.decode(encoding, errors).split("\0"))
                        # let names gather (fewer, larger reads), but not past ripgrep's exit
                        await asyncio.wait([exited], timeout=_PAUSE)
                    code = await exited
                finally:
                    exited.cancel()
        except (ProcessError, TimeoutError):
            return False
        return code in (0, 1) and not rest  # else: a file or folder it could not read, ...


async def walked_files(
    walk: RipgrepWalk, listing: Listing, files: list[str], base: Path, pattern: str,
    *, case_insensitive: bool,
) -> list[str]:  # fmt: skip
    """Which of ``files`` (listed, the glob applied) Python reads: the walk's hits that the
    listing listed, and the symlinked files ripgrep matches by name (all of them when
    ripgrep fails on those). A hit the listing did not list is never read."""
    links = listing.links
    walk.listed(set(files) - links.keys() if links else set(files))
    try:  # a walk reading files Python never would (over 8 MiB) is cut short
        hits = await asyncio.wait_for(walk.hits(), WAIT_S + WAIT_PER_FILE_S * len(files))
    except TimeoutError:
        await walk.stop()
        hits = None
    if listing.rgignore:  # ripgrep read it: it may have left out a listed file
        hits = None
    linked = [f for f in files if f in links] if links else []
    if hits is None:  # search the listed files by name, as without the walk
        hits, linked = set(), files
    if not linked:
        return list(hits)
    reals = [listing.real(f) for f in linked]
    found = await ripgrep_candidates(reals, base, pattern, case_insensitive=case_insensitive)
    return [*hits, *(linked if found is None else [f for f in linked if listing.real(f) in found])]
