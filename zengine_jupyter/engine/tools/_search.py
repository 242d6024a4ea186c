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
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from zengine_jupyter.engine.tools._base import Tool, ToolContext, ToolInput, ToolOutput, in_thread
from zengine_jupyter.engine.tools._grep_read import Ahead, grep_files
from zengine_jupyter.engine.tools._listing import Listing, compile_glob, list_files
from zengine_jupyter.engine.tools._read_check import ReadCheck
from zengine_jupyter.engine.tools._ripgrep import RipgrepSearch
from zengine_jupyter.engine.tools._ripgrep_walk import RipgrepWalk, walked_files
from zengine_jupyter.protocol import ToolError

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["GlobTool", "GrepTool"]

MAX_RESULTS = 200


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
        ahead = Ahead(regex, args)
        folder, ci = target.is_dir(), args.case_insensitive
        walk = None if not folder else RipgrepWalk.start(
            target, ctx.root, args.pattern, case_insensitive=ci, on_hits=ahead.scan
        )  # fmt: skip
        search = None if walk is not None else RipgrepSearch.start(
            ctx.root, args.pattern, case_insensitive=ci, on_found=ahead.scan
        )  # fmt: skip
        try:
            listing, files = await _listed(target, folder, ctx, check, args, search)
            if walk is not None:  # only listed files among the walk's hits are read
                files = await walked_files(walk, listing, files, ctx.root, args.pattern,
                                           case_insensitive=ci)  # fmt: skip
            elif search is not None and (narrowed := await search.found()) is not None:
                files = [f for f in files if listing.real(f) in narrowed]  # only candidates
            await ahead.finished()
        finally:
            if search is not None:
                search.cancel()
            if walk is not None:
                await walk.stop()
        lines: list[str] = await in_thread(grep_files, files, listing, ahead, args, _shown(ctx))
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
