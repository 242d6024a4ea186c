"""NotebookEdit: insert, replace, delete or move one cell (or change its type), keeping the
notebook valid. A notebook open in a page (``ToolContext.live``) is edited there, in the open
document; otherwise the file is."""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from zengine_jupyter.engine.tools._base import (
    PathText,
    Tool,
    ToolContext,
    ToolInput,
    ToolOutput,
    in_thread,
)
from zengine_jupyter.engine.tools._files import (
    FileStamp,
    ReadTracker,
    current_text,
    encode_text,
    existing_file,
    read_text,
    unified_diff,
)
from zengine_jupyter.engine.tools._live import notebook_text
from zengine_jupyter.engine.tools._notebook_view import load_notebook
from zengine_jupyter.host import Directories
from zengine_jupyter.protocol import ToolError

if TYPE_CHECKING:
    from pathlib import Path

    from zengine_jupyter.engine.tools._live import LiveDocuments
    from zengine_jupyter.host import ResolvedPath
    from zengine_jupyter.protocol import DocEdit

__all__ = ["NotebookEditTool"]


class NotebookEditInput(ToolInput):
    path: PathText = Field(description="The .ipynb file (Read it first).")
    mode: Literal["replace", "insert", "delete", "move"] = "replace"
    cell_id: str | None = Field(None, description="Id of the cell to change (from Read).")
    index: int | None = Field(
        None, ge=0, description="Cell position when no id is given; move: the new position."
    )
    cell_type: Literal["code", "markdown", "raw"] | None = Field(
        None, description="Type of an inserted cell, or a new type for a replaced one."
    )
    source: str = Field("", description="The cell's new source (unused for delete).")


class NotebookEditTool(Tool[NotebookEditInput]):
    name = "NotebookEdit"
    kind = "edit"
    description = (
        "Change one cell of a Jupyter notebook: replace its source (cell_type changes its "
        "type), insert a new cell after it (or at index), delete it, or move it to index. "
        "Identify the cell by the id Read shows. A notebook open in JupyterLab is edited in "
        "the open document (the user sees the cells appear; their unsaved work stays)."
    )
    Input = NotebookEditInput

    def paths(self, args: NotebookEditInput, ctx: ToolContext) -> list[Path]:
        return [ctx.target(args, args.path).path]

    async def preview(self, args: NotebookEditInput, ctx: ToolContext) -> str | None:
        target = ctx.target(args, args.path)
        if target.path.suffix != ".ipynb":
            return None
        try:
            notebook = await ctx.live.read(target.path) if ctx.live is not None else None
            if notebook is not None:
                before = await in_thread(notebook_text, notebook)
            else:
                before = await in_thread(current_text, target)
            if before is None:
                return None
            after, _summary, _change = await in_thread(_edit, before, target.path.name, args)
        except ToolError:
            return None
        return unified_diff(target.shown, before, after)

    async def run(self, args: NotebookEditInput, ctx: ToolContext) -> ToolOutput:
        target = ctx.target(args, args.path)
        shown = target.shown
        if target.path.suffix != ".ipynb":
            raise ToolError(f"{shown} is not a notebook: use Edit for other files")
        if ctx.live is not None:
            done = await _edit_live(ctx.live, target, args)
            if done is not None:
                return done
        before, after, summary, stamp = await in_thread(_rewrite, target, args, ctx.reads)
        ctx.reads.record(target.path, stamp)
        return ToolOutput(
            f"{summary} in {shown}",
            changed_paths=(target.path,),
            diff=unified_diff(shown, before, after),
        )


async def _edit_live(
    live: LiveDocuments, target: ResolvedPath, args: NotebookEditInput
) -> ToolOutput | None:
    """The edit made in the open document; None when no page has the notebook open."""
    notebook = await live.read(target.path)
    if notebook is None:
        return None
    before = await in_thread(notebook_text, notebook)
    after, summary, change = await in_thread(_edit, before, target.path.name, args)
    if await live.edit(target.path, change) is None:
        return None  # closed meanwhile: the file it is
    shown = target.shown
    return ToolOutput(
        f"{summary} in {shown} (in the notebook open in JupyterLab; not saved yet)",
        changed_paths=(target.path,),
        diff=unified_diff(shown, before, after),
    )


def _rewrite(
    target: ResolvedPath, args: NotebookEditInput, reads: ReadTracker
) -> tuple[str, str, str, FileStamp]:
    """Read, change and write the notebook, all through one set of safe folder handles."""
    with Directories(target.root) as dirs:
        current = existing_file(dirs, target, missing=": create notebooks with Write")
        reads.require_fresh(target.path, target.shown, current)
        before = read_text(dirs, target)
        after, summary, _change = _edit(before, target.path.name, args)
        written = dirs.write_bytes(target.path, encode_text(after))
    return before, after, summary, FileStamp.of_stat(written)


def _edit(before: str, name: str, args: NotebookEditInput) -> tuple[str, str, DocEdit]:
    """The notebook's text after the edit, a summary, and the edit as a page applies it."""
    import nbformat  # seconds to import (jsonschema): only when a notebook is edited

    from zengine_jupyter.protocol import DocEdit  # with an edit, not with the tool's import

    nb = load_notebook(before, name)
    if args.mode == "insert":
        if args.cell_id is not None:
            at = _by_id(nb, args.cell_id) + 1
        else:
            at = len(nb.cells) if args.index is None else min(args.index, len(nb.cells))
        cell = _new_cell(args.cell_type or "code", args.source)
        cell.id = _stable_id(before, args)  # the preview's diff names the same id
        nb.cells.insert(at, cell)
        summary = f"Inserted {cell.cell_type} cell {at} (id={cell.id})"
        change = DocEdit(op="insert", index=at, cell_id=cell.id, cell=_plain(cell))
    elif args.mode == "move":
        position = _by_id(nb, args.cell_id) if args.cell_id is not None else None
        if position is None or args.index is None:
            raise ToolError("move needs cell_id (from Read) and index (the new position)")
        to = min(args.index, len(nb.cells) - 1)
        moved = nb.cells.pop(position)
        nb.cells.insert(to, moved)
        summary = f"Moved cell {position} to {to} (id={moved.get('id')})"
        change = DocEdit(op="move", index=position, cell_id=str(moved.get("id")), to_index=to)
    else:
        position = _target(nb, args)
        cell_id = str(nb.cells[position].get("id"))
        if args.mode == "delete":
            nb.cells.pop(position)
            summary = f"Deleted cell {position} (id={cell_id})"
            change = DocEdit(op="delete", index=position, cell_id=cell_id)
        else:
            old = nb.cells[position]
            if args.cell_type and args.cell_type != old.cell_type:
                new = _new_cell(args.cell_type, args.source)
                new.id = old.get("id", new.id)
                nb.cells[position] = new
            else:
                old.source = args.source
                if old.cell_type == "code":
                    old.outputs, old.execution_count = [], None
            summary = f"Replaced cell {position} (id={cell_id})"
            change = DocEdit(
                op="replace", index=position, cell_id=cell_id, cell=_plain(nb.cells[position])
            )
    try:
        nbformat.validate(nb)
    except nbformat.ValidationError as exc:
        raise ToolError(f"the edit would make the notebook invalid: {exc.message}") from None
    return nbformat.writes(nb) + "\n", summary, change


def _plain(cell: Any) -> dict[str, Any]:
    """A cell as plain JSON data (nbformat's nodes are dict subclasses)."""
    plain: dict[str, Any] = json.loads(json.dumps(cell))
    return plain


def _stable_id(before: str, args: NotebookEditInput) -> str:
    """A new cell's id from the notebook and the call: the approval preview and the edit
    itself make the same one."""
    seed = f"{before}\0{args.model_dump_json()}".encode("utf-8", "surrogatepass")
    return hashlib.sha256(seed).hexdigest()[:8]


def _by_id(nb: Any, cell_id: str) -> int:
    for index, cell in enumerate(nb.cells):
        if cell.get("id") == cell_id:
            return index
    ids = ", ".join(str(c.get("id")) for c in nb.cells[:30])
    raise ToolError(f"no cell with id {cell_id!r}; the notebook's ids are: {ids}")


def _target(nb: Any, args: NotebookEditInput) -> int:
    if args.cell_id is not None:
        return _by_id(nb, args.cell_id)
    if args.index is None:
        raise ToolError(f"{args.mode} needs cell_id (from Read) or index")
    if args.index >= len(nb.cells):
        raise ToolError(f"index {args.index} is past the last cell ({len(nb.cells) - 1})")
    return args.index


def _new_cell(cell_type: str, source: str) -> Any:
    import nbformat

    if cell_type == "markdown":
        return nbformat.v4.new_markdown_cell(source)
    if cell_type == "raw":
        return nbformat.v4.new_raw_cell(source)
    return nbformat.v4.new_code_cell(source)
