"""Glob and Grep: find files by name and by content, ignores respected.

Both see the files :mod:`._listing` lists: no symlink out of the project is followed and a
file the Read rules would not let the model read without asking is left out (and counted in
a last line, so the model knows the answer is partial). The count covers the whole listing,
not the matches, so it says nothing about the names or contents of the files left out.
"""

from __future__ import annotations

import asyncio
import os
import re
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from zengine_jupyter.engine.tools._base import Tool, ToolContext, ToolInput, ToolOutput, in_thread
from zengine_jupyter.engine.tools._listing import Listing, compile_glob, list_files
from zengine_jupyter.engine.tools._read_check import ReadCheck
from zengine_jupyter.engine.tools._ripgrep import RipgrepSearch
from zengine_jupyter.protocol import ToolError

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["GlobTool", "GrepTool"]

MAX_RESULTS = 200
AHEAD_FILES = 4096
"""Candidates Python reads while ripgrep still runs (their lines are kept until the answer)."""
_MAX_GREP_BYTES = 8 * 1024 * 1024
_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


class GlobInput(ToolInput):
    pattern: str = Field(description="Path glob, e.g. **/*.py or src/**/test_*.py")
    path: str = Field(".", description="Folder to search in (default: the project).")


class GlobTool(Tool[GlobInput]):
    name = "Glob"
    kind = "read"
    description = (
        "Find files by path pattern (** crosses folders). Ignored files are left out. Newest first."
    )
    Input = GlobInput

    def paths(self, args: GlobInput, ctx: ToolContext) -> list[Path]:
        return [ctx.resolve(args.path)]

    async def run(self, args: GlobInput, ctx: ToolContext) -> ToolOutput:
        folder = ctx.resolve(args.path)
        if not folder.is_dir():
            raise ToolError(f"{ctx.display(folder)} is not a folder")
        listing = await list_files(folder, root=ctx.root, check=ReadCheck.for_call(folder, ctx))
        matches: list[str] = await in_thread(_glob, folder, args.pattern, listing)
        note = listing.notes()
        if not matches:
            return ToolOutput(
                "\n".join([f"no files match {args.pattern} in {ctx.display(folder)}", *note])
            )
        lines = [ctx.display(Path(p)) for p in matches[:MAX_RESULTS]]
        if len(matches) > MAX_RESULTS:
            lines.append(f"[{len(matches) - MAX_RESULTS} more; narrow the pattern]")
        return ToolOutput("\n".join([*lines, *note]))


def _glob(folder: Path, pattern: str, listing: Listing) -> list[str]:
    regex = compile_glob(pattern.removeprefix("./"))
    cut = len(_head(folder))
    found = [p for p in listing.names if regex.match(p[cut:])]
    return sorted(found, key=lambda p: _mtime(listing.real(p)), reverse=True)


def _head(folder: Path) -> str:
    """What every listed path under ``folder`` starts with."""
    return str(folder).rstrip("/") + "/"


def _mtime(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns  # noqa: PTH116 (a string: no Path per file)
    except OSError:
        return 0


class GrepInput(ToolInput):
    pattern: str = Field(description="Regular expression (Python syntax).")
    path: str = Field(".", description="File or folder to search.")
    glob: str | None = Field(None, description="Only files matching this glob, e.g. *.py")
    output_mode: Literal["files_with_matches", "content", "count"] = "files_with_matches"
    case_insensitive: bool = False
    context: int = Field(0, ge=0, le=20, description="Lines of context (content mode).")
    head_limit: int = Field(MAX_RESULTS, ge=1, le=2000, description="At most this many lines.")


class GrepTool(Tool[GrepInput]):
    name = "Grep"
    kind = "read"
    description = (
        "Search file contents with a regular expression. Modes: files_with_matches "
        "(default), content (matching lines with numbers), count. Ignored files are left out."
    )
    Input = GrepInput

    def paths(self, args: GrepInput, ctx: ToolContext) -> list[Path]:
        return [ctx.resolve(args.path)]

    async def run(self, args: GrepInput, ctx: ToolContext) -> ToolOutput:
        try:
            regex = re.compile(args.pattern, re.IGNORECASE if args.case_insensitive else 0)
        except re.error as exc:
            raise ToolError(f"invalid regular expression {args.pattern!r}: {exc}") from None
        target = ctx.resolve(args.path)
        if not target.exists():
            raise ToolError(f"{ctx.display(target)} does not exist")
        check = ReadCheck.for_call(target, ctx)
        ahead = _Ahead(regex, args)
        search = RipgrepSearch.start(
            ctx.root, args.pattern, case_insensitive=args.case_insensitive, on_found=ahead.scan
        )
        try:  # fmt: skip
            listing, files = await _listed(target, target.is_dir(), ctx, check, args, search)
            narrowed = None if search is None else await search.found()
            await ahead.finished()
        finally:
            if search is not None:
                search.cancel()
        if narrowed is not None:  # ripgrep read them all: Python reads only the candidates
            files = [f for f in files if listing.real(f) in narrowed]
        lines: list[str] = await in_thread(_grep, files, listing, ahead, args, _shown(ctx))
        note = listing.notes()
        if not lines:
            return ToolOutput("\n".join([f"no matches for {args.pattern!r}", *note]))
        if len(lines) > args.head_limit:
            extra = len(lines) - args.head_limit
            lines = [*lines[: args.head_limit], f"[{extra} more lines; narrow the search]"]
        return ToolOutput("\n".join([*lines, *note]))


async def _listed(
    target: Path,
    folder: bool,
    ctx: ToolContext,
    check: ReadCheck,
    args: GrepInput,
    search: RipgrepSearch | None,
) -> tuple[Listing, list[str]]:
    """The listing and the files the glob keeps, each fed to ``search`` (the real file it
    names) as soon as it is listed."""
    keep = _kept(target, folder, args)
    if not folder:
        listing = await in_thread(_one_file, target, check)
    elif search is None:
        listing = await list_files(target, root=ctx.root, check=check)
    else:
        loop = asyncio.get_running_loop()

        def feed(names: list[str], listing: Listing) -> None:  # in the walk's thread
            chosen = [listing.real(n) for n in names if keep is None or keep(n)]
            loop.call_soon_threadsafe(search.feed, chosen)

        listing = await list_files(target, root=ctx.root, check=check, on_batch=feed)
        # the walk's last feed ran before this: its thread scheduled it before returning
    files = listing.names if keep is None else [f for f in listing.names if keep(f)]
    if search is not None and not folder:
        search.feed([listing.real(f) for f in files])
    return listing, files


def _one_file(target: Path, check: ReadCheck) -> Listing:
    """A Grep of one file: the same symlink and Read-rules checks as a listed file."""
    real = os.path.realpath(target)
    linked = target.is_symlink()
    if not Path(real).is_file() or not check.allows(target, real, linked=linked):
        return Listing(left_out=1)
    name = str(target)
    return Listing([name], {name: real} if name != real else {})


def _kept(target: Path, folder: bool, args: GrepInput) -> Callable[[str], bool] | None:
    """Whether the glob keeps a listed file (None without a glob: all are kept)."""
    if not args.glob:
        return None
    match = compile_glob(args.glob).match
    if "/" not in args.glob:
        return lambda f: match(f.rpartition("/")[2]) is not None
    cut = len(_head(target if folder else target.parent))
    return lambda f: match(f[cut:]) is not None


def _shown(ctx: ToolContext) -> Callable[[str], str]:
    """``ctx.display`` of a listed path, worked out once per folder."""
    heads: dict[str, str] = {}

    def shown(path: str) -> str:
        folder, _, name = path.rpartition("/")
        head = heads.get(folder)
        if head is None:
            seen = ctx.display(Path(folder or "/"))
            head = heads[folder] = "" if seen == "." else seen.rstrip("/") + "/"
        return head + name

    return shown


_Scan = tuple[list[str], list[int]] | None
"""A file's lines (content mode only) and its matching line numbers; None: not text."""


class _Ahead:
    """Python's reading of ripgrep's candidates while ripgrep still reads other batches (on a
    worker thread), up to :data:`AHEAD_FILES`; :func:`_grep` reads the rest in path order."""

    def __init__(self, regex: re.Pattern[str], args: GrepInput) -> None:
        self.regex, self.args = regex, args
        self.done: dict[str, _Scan] = {}
        self._room = AHEAD_FILES
        self._work: list[asyncio.Future[None]] = []

    def scan(self, reals: set[str]) -> None:
        """Read ``reals`` (a finished run's candidates) in a thread, within the budget."""
        batch = list(reals)[: self._room]
        self._room -= len(batch)
        if batch:
            self._work.append(asyncio.ensure_future(in_thread(self._scan_all, batch)))

    async def finished(self) -> None:
        await asyncio.gather(*self._work)

    def _scan_all(self, reals: list[str]) -> None:
        for real in reals:
            self.done[real] = _scan(real, self.regex, self.args)


def _scan(real: str, regex: re.Pattern[str], args: GrepInput) -> _Scan:
    text = _text_of(real)
    if text is None:
        return None
    lines = text.splitlines()
    if args.output_mode == "files_with_matches":  # the first matching line is enough
        return [], [0] if any(map(regex.search, lines)) else []
    hits = [i for i, line in enumerate(lines) if regex.search(line)]
    return (lines if args.output_mode == "content" else []), hits


def _grep(
    files: list[str],
    listing: Listing,
    ahead: _Ahead,
    args: GrepInput,
    display: Callable[[str], str],
) -> list[str]:
    out: list[str] = []
    for path in sorted(files, key=_parts):
        real = listing.real(path)
        scanned = ahead.done[real] if real in ahead.done else _scan(real, ahead.regex, args)
        if scanned is None:
            continue
        lines, hits = scanned
        if not hits:
            continue
        shown = display(path)
        if args.output_mode == "files_with_matches":
            out.append(shown)
        elif args.output_mode == "count":
            out.append(f"{shown}:{len(hits)}")
        else:
            out.extend(_with_context(shown, lines, hits, args.context))
        if len(out) > args.head_limit + 1:
            break
    return out


def _with_context(shown: str, lines: list[str], hits: list[int], context: int) -> list[str]:
    keep = sorted(
        {j for i in hits for j in range(i - context, i + context + 1) if 0 <= j < len(lines)}
    )
    hit_set = set(hits)
    out, previous = [], -2
    for j in keep:
        if context and previous >= 0 and j != previous + 1:
            out.append("--")
        sep = ":" if j in hit_set else "-"
        out.append(f"{shown}{sep}{j + 1}{sep}{lines[j][:500]}")
        previous = j
    return out


def _read_all(fd: int, size: int) -> bytes:
    """Up to ``size`` bytes, to the end of the file (no buffered file object: one read)."""
    data = os.read(fd, size)
    while len(data) < size:
        more = os.read(fd, size - len(data))
        if not more:
            break
        data += more
    return data


def _parts(path: str) -> list[str]:
    """The order ``Path`` objects sort in (part by part), without making them."""
    return path.split("/")


def _text_of(path: str) -> str | None:
    """The file's text; never through a symlink (a link swapped in after the listing)."""
    try:
        fd = os.open(path, _OPEN_FLAGS)  # non-blocking: a fifo swapped in must not hang us
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_GREP_BYTES:
            return None
        data = _read_all(fd, info.st_size + 1)  # not a buffer of the whole limit
    except OSError:
        return None
    finally:
        os.close(fd)
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", "replace")
