"""Read, Write and Edit: the file tools, and the record of what the model has read.

Each resolves its path once through the one resolver (``ctx.target``: what the gate saw is
what is touched) and does its IO through ``host._safe_fs.Directories``: no symlink is
followed on the way, a new file gets the umask's mode, an existing one keeps its own.
"""

from __future__ import annotations

import difflib
import os
import stat
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import Field

from zengine_jupyter.engine.tools._base import (
    PathText,
    Tool,
    ToolContext,
    ToolInput,
    ToolOutput,
    in_thread,
)
from zengine_jupyter.engine.tools._lines import DEFAULT_LINES, MAX_LINE_CHARS, numbered_lines
from zengine_jupyter.engine.tools._live import notebook_text, refuse_unsaved
from zengine_jupyter.engine.tools._notebook_view import render_notebook
from zengine_jupyter.host import Directories
from zengine_jupyter.protocol import ToolError

if TYPE_CHECKING:
    from pathlib import Path

    from zengine_jupyter.host import ResolvedPath

__all__ = [
    "MAX_LINE_CHARS",
    "EditTool",
    "FileStamp",
    "ReadTool",
    "ReadTracker",
    "WriteTool",
    "current_text",
    "encode_text",
    "read_text",
    "unified_diff",
]

_BINARY_PROBE = 8192


@dataclass(frozen=True)
class FileStamp:
    """What a file looked like when the model last read (or wrote) it."""

    mtime_ns: int
    ctime_ns: int
    size: int

    @classmethod
    def of(cls, path: Path) -> FileStamp:
        return cls.of_stat(path.stat())

    @classmethod
    def of_stat(cls, info: os.stat_result) -> FileStamp:
        return cls(info.st_mtime_ns, info.st_ctime_ns, info.st_size)


class ReadTracker:
    """Which files the model has seen as they are now. Edit and Write of an existing file
    require a read since the file last changed; a conversation rewind clears it."""

    def __init__(self) -> None:
        self._seen: dict[Path, FileStamp] = {}

    def record(self, path: Path, stamp: FileStamp | None = None) -> None:
        self._seen[path] = stamp or FileStamp.of(path)

    def forget(self) -> None:
        self._seen.clear()

    def require_fresh(self, path: Path, shown: str, current: os.stat_result | None = None) -> None:
        """``current``: the file's stat as the caller found it (else it is stat'ed here)."""
        seen = self._seen.get(path)
        if seen is None:
            raise ToolError(f"{shown} has not been read in this conversation: Read it first")
        if current is None:
            try:
                current = path.stat()
            except FileNotFoundError:
                raise ToolError(f"{shown} no longer exists") from None
        if FileStamp.of_stat(current) != seen:
            raise ToolError(
                f"{shown} changed on disk since you read it: Read it again before editing"
            )


# ---------------------------------------------------------------------- Read
class ReadInput(ToolInput):
    path: PathText = Field(description="File to read, relative to the project or absolute.")
    offset: int = Field(1, ge=1, description="First line to show (1-based).")
    limit: int = Field(DEFAULT_LINES, ge=1, le=20_000, description="How many lines at most.")


class ReadTool(Tool[ReadInput]):
    name = "Read"
    kind = "read"
    description = (
        "Read a text file with line numbers (cat -n style); use offset and limit for long "
        "files. Notebooks (.ipynb) are shown cell by cell with their ids."
    )
    Input = ReadInput

    def paths(self, args: ReadInput, ctx: ToolContext) -> list[Path]:
        return [ctx.target(args, args.path).path]

    async def run(self, args: ReadInput, ctx: ToolContext) -> ToolOutput:
        target = ctx.target(args, args.path)
        if target.path.suffix == ".ipynb" and ctx.live is not None:
            notebook = await ctx.live.read(target.path)
            if notebook is not None:  # open in a page: what the user sees, unsaved edits too
                text = render_notebook(notebook_text(notebook), target.path.name)
                return ToolOutput(f"{text}\n(open in JupyterLab: the live document)")
        text, stamp = await in_thread(_read, target, args.offset, args.limit)
        ctx.reads.record(target.path, stamp)
        return ToolOutput(text)


def _read(target: ResolvedPath, offset: int, limit: int) -> tuple[str, FileStamp]:
    shown = target.shown
    with Directories(target.root) as dirs:
        fd, info = dirs.open_regular(target.path)
    with os.fdopen(fd, "rb") as handle:
        stamp = FileStamp.of_stat(info)
        if target.path.suffix == ".ipynb":
            return render_notebook(_decode(handle.read(), shown), target.path.name), stamp
        if b"\0" in handle.read(_BINARY_PROBE):
            raise ToolError(
                f"{shown} is a binary file ({info.st_size:,} bytes): "
                "inspect it with Bash (file, xxd, python) instead"
            )
        handle.seek(0)
        return numbered_lines(handle, shown, offset, limit), stamp


# ---------------------------------------------------------------------- Write
class WriteInput(ToolInput):
    path: PathText = Field(description="File to create or overwrite.")
    content: str = Field(description="The whole new content.")


class WriteTool(Tool[WriteInput]):
    name = "Write"
    kind = "edit"
    description = (
        "Create a file, or replace an existing one entirely (Read it first). "
        "Prefer Edit for changes to part of a file."
    )
    Input = WriteInput

    def paths(self, args: WriteInput, ctx: ToolContext) -> list[Path]:
        return [ctx.target(args, args.path).path]

    async def preview(self, args: WriteInput, ctx: ToolContext) -> str | None:
        target = ctx.target(args, args.path)
        try:
            before = await in_thread(current_text, target)
        except ToolError:
            return None
        return unified_diff(target.shown, before or "", args.content)

    async def run(self, args: WriteInput, ctx: ToolContext) -> ToolOutput:
        target = ctx.target(args, args.path)
        refuse_unsaved(ctx.live, target.path, target.shown)
        data = encode_text(args.content)
        before, stamp = await in_thread(_write, target, data, ctx.reads)
        ctx.reads.record(target.path, stamp)
        verb = "Updated" if before is not None else "Created"
        lines = args.content.count("\n") + (0 if args.content.endswith("\n") else 1)
        return ToolOutput(
            f"{verb} {target.shown} ({lines} lines)",
            changed_paths=(target.path,),
            diff=unified_diff(target.shown, before or "", args.content),
        )


def _write(target: ResolvedPath, data: bytes, reads: ReadTracker) -> tuple[str | None, FileStamp]:
    """Write ``data``; the old text (None for a new file) and the new file's stamp."""
    shown = target.shown
    with Directories(target.root) as dirs:
        dirs.folder(target.path.parent, create=True)
        current = dirs.lstat(target.path)
        before = None
        if current is not None:
            if stat.S_ISDIR(current.st_mode):
                raise ToolError(f"{shown} is a folder")
            reads.require_fresh(target.path, shown, current)
            before = read_text(dirs, target)
        written = dirs.write_bytes(target.path, data)
    return before, FileStamp.of_stat(written)


# ---------------------------------------------------------------------- Edit
class EditInput(ToolInput):
    path: PathText = Field(description="File to edit (Read it first).")
    old_string: str = Field(min_length=1, description="Exact text to replace, unique in the file.")
    new_string: str = Field(description="Replacement text.")
    replace_all: bool = Field(False, description="Replace every occurrence instead of one.")


class EditTool(Tool[EditInput]):
    name = "Edit"
    kind = "edit"
    description = (
        "Replace exact text in a file you have read. old_string must match the file exactly "
        "(whitespace included) and be unique unless replace_all is true."
    )
    Input = EditInput

    def paths(self, args: EditInput, ctx: ToolContext) -> list[Path]:
        return [ctx.target(args, args.path).path]

    async def preview(self, args: EditInput, ctx: ToolContext) -> str | None:
        target = ctx.target(args, args.path)
        try:
            before = await in_thread(current_text, target)
            if before is None:
                return None
            after, _count = _replaced(before, args, target.shown)
        except ToolError:
            return None
        return unified_diff(target.shown, before, after)

    async def run(self, args: EditInput, ctx: ToolContext) -> ToolOutput:
        target = ctx.target(args, args.path)
        refuse_unsaved(ctx.live, target.path, target.shown)
        before, after, count, stamp = await in_thread(_edit, target, args, ctx.reads)
        ctx.reads.record(target.path, stamp)
        shown = target.shown
        first_line = before[: before.index(_matching(before, args)[0])].count("\n") + 1
        noun = f"{count} occurrences" if args.replace_all and count > 1 else "1 occurrence"
        return ToolOutput(
            f"Edited {shown}: replaced {noun} (from line {first_line})",
            changed_paths=(target.path,),
            diff=unified_diff(shown, before, after),
        )


def _edit(
    target: ResolvedPath, args: EditInput, reads: ReadTracker
) -> tuple[str, str, int, FileStamp]:
    shown = target.shown
    with Directories(target.root) as dirs:
        current = existing_file(dirs, target)
        reads.require_fresh(target.path, shown, current)
        before = read_text(dirs, target)
        after, count = _replaced(before, args, shown)
        written = dirs.write_bytes(target.path, encode_text(after))
    return before, after, count, FileStamp.of_stat(written)


def _replaced(before: str, args: EditInput, shown: str) -> tuple[str, int]:
    """The text after the edit and how many occurrences it replaced (Edit and its preview)."""
    if args.old_string == args.new_string:
        raise ToolError("old_string and new_string are the same: nothing to change")
    old, new = _matching(before, args)
    count = before.count(old)
    if count == 0:
        raise ToolError(
            f"old_string was not found in {shown}: Read the file again and copy the exact "
            "text, including indentation"
        )
    if count > 1 and not args.replace_all:
        raise ToolError(
            f"old_string appears {count} times in {shown}: include more surrounding text "
            "to make it unique, or set replace_all"
        )
    after = before.replace(old, new) if args.replace_all else before.replace(old, new, 1)
    return after, count


def _matching(before: str, args: EditInput) -> tuple[str, str]:
    """old and new strings, with CRLF line ends when the file uses them and old needs it."""
    old, new = args.old_string, args.new_string
    if old not in before and "\r\n" in before:
        old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
    return old, new


def existing_file(dirs: Directories, target: ResolvedPath, missing: str = "") -> os.stat_result:
    """The stat of the regular file ``target``, or a ToolError saying what is there instead
    (``missing`` is added to the "does not exist" message)."""
    current = dirs.lstat(target.path)
    if current is None:
        raise ToolError(f"{target.shown} does not exist{missing}")
    if stat.S_ISDIR(current.st_mode):
        raise ToolError(f"{target.shown} is a folder: list it with Glob or Bash ls")
    if not stat.S_ISREG(current.st_mode):
        raise ToolError(f"{target.shown} is not a regular file")
    return current


def current_text(target: ResolvedPath) -> str | None:
    """The text of ``target`` now (``None``: no file there), read as the edit tools read it;
    for previews (blocking: run it in a thread)."""
    with Directories(target.root) as dirs:
        if dirs.lstat(target.path) is None:
            return None
        existing_file(dirs, target)
        return read_text(dirs, target)


def read_text(dirs: Directories, target: ResolvedPath) -> str:
    """The file's text (UTF-8), read without following a symlink."""
    data, _ = dirs.read_bytes(target.path)
    return _decode(data, target.shown)


def _decode(data: bytes, shown: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError(
            f"{shown} is not UTF-8 text: change it with Bash (for example with python)"
        ) from None


def encode_text(text: str) -> bytes:
    """``text`` as UTF-8; a lone surrogate (which no file can hold) is the model's error."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = text[exc.start : exc.end].encode("unicode_escape").decode("ascii")
        raise ToolError(
            f"the content cannot be written as UTF-8: {bad} at character {exc.start} is a "
            "lone surrogate; send valid text"
        ) from None


def unified_diff(shown: str, before: str, after: str) -> str:
    """A unified diff of one file for the tool card."""
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=f"a/{shown}",
            tofile=f"b/{shown}",
        )
    )
