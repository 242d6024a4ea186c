"""Read, Write and Edit: the file tools, and the record of what the model has read."""

from __future__ import annotations

import difflib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pydantic import Field

from zengine_jupyter.engine.tools._base import Tool, ToolContext, ToolInput, ToolOutput, in_thread
from zengine_jupyter.engine.tools._notebook_view import render_notebook
from zengine_jupyter.protocol._errors import ToolError

__all__ = ["EditTool", "FileStamp", "ReadTool", "ReadTracker", "WriteTool"]

MAX_LINE_CHARS = 2000
DEFAULT_LINES = 2000
_BINARY_PROBE = 8192


@dataclass(frozen=True)
class FileStamp:
    """What a file looked like when the model last read (or wrote) it."""

    mtime_ns: int
    ctime_ns: int
    size: int

    @classmethod
    def of(cls, path: Path) -> FileStamp:
        info = path.stat()
        return cls(info.st_mtime_ns, info.st_ctime_ns, info.st_size)


class ReadTracker:
    """Which files the model has seen as they are now. Edit and Write of an existing file
    require a read since the file last changed; a conversation rewind clears it."""

    def __init__(self) -> None:
        self._seen: dict[Path, FileStamp] = {}

    def record(self, path: Path) -> None:
        self._seen[path] = FileStamp.of(path)

    def forget(self) -> None:
        self._seen.clear()

    def require_fresh(self, path: Path, shown: str) -> None:
        seen = self._seen.get(path)
        if seen is None:
            raise ToolError(f"{shown} has not been read in this conversation: Read it first")
        if FileStamp.of(path) != seen:
            raise ToolError(
                f"{shown} changed on disk since you read it: Read it again before editing"
            )


# ---------------------------------------------------------------------- Read
class ReadInput(ToolInput):
    path: str = Field(description="File to read, relative to the project or absolute.")
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
        return [ctx.resolve(args.path)]

    async def run(self, args: ReadInput, ctx: ToolContext) -> ToolOutput:
        path = ctx.resolve(args.path)
        text: str = await in_thread(_read_lines, path, ctx.display(path), args.offset, args.limit)
        ctx.reads.record(path)
        return ToolOutput(text)


def _read_lines(path: Path, shown: str, offset: int, limit: int) -> str:
    _check_readable(path, shown)
    if path.suffix == ".ipynb":
        return render_notebook(path)
    out: list[str] = []
    total = 0
    more = False
    with path.open("rb") as handle:
        if b"\0" in handle.read(_BINARY_PROBE):
            raise ToolError(
                f"{shown} is a binary file ({path.stat().st_size:,} bytes): "
                "inspect it with Bash (file, xxd, python) instead"
            )
        handle.seek(0)
        for number, raw in enumerate(handle, start=1):
            total = number
            if number < offset:
                continue
            if number >= offset + limit:
                more = True  # stop here: a huge file is never read to its end
                break
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            if len(line) > MAX_LINE_CHARS:
                line = line[:MAX_LINE_CHARS] + f" [... {len(line) - MAX_LINE_CHARS} more chars]"
            out.append(f"{number:>6}\t{line}")
    if total == 0:
        return f"({shown} is empty)"
    if offset > total:
        raise ToolError(f"{shown} has {total} lines; offset {offset} is past the end")
    last = min(total, offset + limit - 1)
    if more:
        out.append(f"[lines {offset}-{last} shown; the file goes on: use offset={last + 1}]")
    elif offset > 1:
        out.append(f"[lines {offset}-{last} of {total}]")
    return "\n".join(out)


def _check_readable(path: Path, shown: str) -> None:
    if path.is_dir():
        raise ToolError(f"{shown} is a folder: list it with Glob or Bash ls")
    if not path.exists():
        raise ToolError(f"{shown} does not exist")


# ---------------------------------------------------------------------- Write
class WriteInput(ToolInput):
    path: str = Field(description="File to create or overwrite.")
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
        return [ctx.resolve(args.path)]

    async def run(self, args: WriteInput, ctx: ToolContext) -> ToolOutput:
        path = ctx.resolve(args.path)
        shown = ctx.display(path)
        if path.is_dir():
            raise ToolError(f"{shown} is a folder")
        before = ""
        if path.exists():
            ctx.reads.require_fresh(path, shown)
            before = await in_thread(_read_text, path, shown)
        await in_thread(write_atomic, path, args.content)
        ctx.reads.record(path)
        verb = "Updated" if before else "Created"
        lines = args.content.count("\n") + (0 if args.content.endswith("\n") else 1)
        return ToolOutput(
            f"{verb} {shown} ({lines} lines)",
            changed_paths=(path,),
            diff=unified_diff(shown, before, args.content),
        )


# ---------------------------------------------------------------------- Edit
class EditInput(ToolInput):
    path: str = Field(description="File to edit (Read it first).")
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
        return [ctx.resolve(args.path)]

    async def run(self, args: EditInput, ctx: ToolContext) -> ToolOutput:
        path = ctx.resolve(args.path)
        shown = ctx.display(path)
        _check_readable(path, shown)
        ctx.reads.require_fresh(path, shown)
        if args.old_string == args.new_string:
            raise ToolError("old_string and new_string are the same: nothing to change")
        before: str = await in_thread(_read_text, path, shown)
        old, new = args.old_string, args.new_string
        if old not in before and "\r\n" in before:
            old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
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
        await in_thread(write_atomic, path, after)
        ctx.reads.record(path)
        first_line = before[: before.index(old)].count("\n") + 1
        noun = f"{count} occurrences" if args.replace_all and count > 1 else "1 occurrence"
        return ToolOutput(
            f"Edited {shown}: replaced {noun} (from line {first_line})",
            changed_paths=(path,),
            diff=unified_diff(shown, before, after),
        )


def _read_text(path: Path, shown: str) -> str:
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError(
            f"{shown} is not UTF-8 text: change it with Bash (for example with python)"
        ) from None


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` in one step, keeping its permission bits."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o7777 if path.exists() else None
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".zengine")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        if mode is not None:
            Path(tmp).chmod(mode)
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


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
