"""Live notebook edits, engine and kernel side (issue 23): NotebookEdit, Read, Write and Edit
through the kernel's live-documents registry, with a page in Python answering as the
labextension does (``zengine_jupyter.testing.live_page``; the browser test drives the real one).
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from zengine_jupyter.engine.tools import (
    EditTool,
    NotebookEditTool,
    ReadTool,
    ToolContext,
    WriteTool,
)
from zengine_jupyter.kernel._live_docs import ChatLive, LiveRegistry
from zengine_jupyter.testing.live_page import FakePage

nb_edit, read, write, edit = NotebookEditTool(), ReadTool(), WriteTool(), EditTool()
CELLS = (("c-load", "%load_ext zengine"), ("c-x", "x = 1"), ("c-y", "y = 2"))


def _notebook(root: Path, name: str = "nb.ipynb") -> str:
    nb = nbformat.v4.new_notebook()
    for cell_id, source in CELLS:
        cell = nbformat.v4.new_code_cell(source)
        cell.id = cell_id
        nb.cells.append(cell)
    nbformat.write(nb, root / name)
    return name


@pytest.fixture
def turn() -> list[str | None]:
    return ["turn-1"]


@pytest.fixture
def page(ctx: ToolContext, turn: list[str | None]) -> FakePage:
    registry = LiveRegistry()
    ctx.live = ChatLive(registry, lambda: turn[0])
    return FakePage(registry, ctx.root)


async def test_an_open_notebook_is_edited_in_the_page_not_on_disk(
    ctx: ToolContext, page: FakePage
) -> None:
    name = _notebook(ctx.root)
    on_disk = (ctx.root / name).read_text()
    page.open(name, dirty=True)  # the user has unsaved work in it
    page.notebooks[name]["cells"][2]["source"] = "y = 2  # the user's unsaved edit"

    first = await nb_edit.call({"path": name, "mode": "insert", "cell_id": "c-load",
                                "source": "a = 'agent'"}, ctx)  # fmt: skip
    second = await nb_edit.call({"path": name, "cell_id": "c-x", "source": "x = 10"}, ctx)

    assert not first.is_error, first.content
    assert not second.is_error, second.content
    assert (ctx.root / name).read_text() == on_disk, "the open notebook's file was written"
    assert page.sources(name) == ["%load_ext zengine", "a = 'agent'", "x = 10",
                                  "y = 2  # the user's unsaved edit"]  # fmt: skip
    assert "not saved yet" in second.content
    assert second.diff is not None
    assert '+    "x = 10"' in second.diff.replace("\n", "")
    edits = [r.edit for r in page.requests if r.action == "edit"]
    assert [(e.op, e.index) for e in edits if e] == [("insert", 1), ("replace", 2)]
    assert {r.turn_id for r in page.requests if r.action == "edit"} == {"turn-1"}


async def test_move_and_change_type_in_the_page(ctx: ToolContext, page: FakePage) -> None:
    name = _notebook(ctx.root)
    page.open(name)
    moved = await nb_edit.call({"path": name, "mode": "move", "cell_id": "c-y", "index": 0}, ctx)
    typed = await nb_edit.call({"path": name, "cell_id": "c-x", "cell_type": "markdown",
                                "source": "# x"}, ctx)  # fmt: skip
    assert not moved.is_error, moved.content
    assert not typed.is_error, typed.content
    cells = page.notebooks[name]["cells"]
    assert [c["id"] for c in cells] == ["c-y", "c-load", "c-x"]
    assert cells[2]["cell_type"] == "markdown"


async def test_read_of_an_open_notebook_shows_the_live_content(
    ctx: ToolContext, page: FakePage
) -> None:
    name = _notebook(ctx.root)
    page.open(name, dirty=True)
    page.notebooks[name]["cells"][1]["source"] = "x = 'unsaved'"
    out = await read.call({"path": name}, ctx)
    assert "x = 'unsaved'" in out.content
    assert "live document" in out.content


async def test_a_closed_notebook_is_edited_on_disk_as_before(
    ctx: ToolContext, page: FakePage
) -> None:
    name = _notebook(ctx.root)
    await read.call({"path": name}, ctx)  # not open in any page: the file, read first
    out = await nb_edit.call({"path": name, "cell_id": "c-x", "source": "x = 5"}, ctx)
    assert not out.is_error, out.content
    assert [c.source for c in nbformat.read(ctx.root / name, as_version=4).cells][1] == "x = 5"
    assert page.requests == []


async def test_write_and_edit_refuse_an_open_notebook_with_unsaved_changes(
    ctx: ToolContext, page: FakePage
) -> None:
    name = _notebook(ctx.root)
    on_disk = (ctx.root / name).read_text()
    page.open(name, dirty=True)
    await read.call({"path": name}, ctx)
    wrote = await write.call({"path": name, "content": "{}"}, ctx)
    edited = await edit.call({"path": name, "old_string": "x = 1", "new_string": "x = 2"}, ctx)
    for out in (wrote, edited):
        assert out.is_error, out.content
        assert "unsaved changes" in out.content
    assert (ctx.root / name).read_text() == on_disk


async def test_a_rewind_puts_the_open_notebook_back_as_before_the_turn(
    ctx: ToolContext, page: FakePage, turn: list[str | None]
) -> None:
    name = _notebook(ctx.root)
    page.open(name)
    before = json.loads(json.dumps(page.notebooks[name]["cells"]))
    await nb_edit.call({"path": name, "mode": "insert", "index": 0, "source": "one"}, ctx)
    turn[0] = "turn-2"
    await nb_edit.call({"path": name, "mode": "delete", "cell_id": "c-y"}, ctx)
    assert len(page.notebooks[name]["cells"]) == 3

    assert isinstance(ctx.live, ChatLive)
    restored = await ctx.live.restore(["turn-1", "turn-2"])

    assert restored == [str((ctx.root / name).resolve())]
    assert page.notebooks[name]["cells"] == before


async def test_a_rewind_after_a_kernel_restart_still_puts_the_open_notebook_back(
    ctx: ToolContext, tmp_path: Path, turn: list[str | None]
) -> None:
    """The notebook as it was before the turn (the user's unsaved edit included) is kept in
    the chat's folder, not only in the kernel's memory: a new kernel's chat, a new page."""
    name = _notebook(ctx.root)
    kept = tmp_path / "chat" / "live"
    first = FakePage(LiveRegistry(), ctx.root)
    ctx.live = ChatLive(first.registry, lambda: turn[0], folder=kept)
    first.open(name, dirty=True)
    first.notebooks[name]["cells"][1]["source"] = "x = 1  # unsaved"
    before = json.loads(json.dumps(first.notebooks[name]["cells"]))
    await nb_edit.call({"path": name, "cell_id": "c-x", "source": "x = 'agent'"}, ctx)
    turn[0] = "turn-2"
    await nb_edit.call({"path": name, "mode": "insert", "index": 0, "source": "two"}, ctx)
    assert [f.stat().st_mode & 0o777 for f in kept.iterdir()] == [0o600, 0o600]

    # the kernel restarted: a new registry, a new chat object; the page reopened the notebook
    second = FakePage(LiveRegistry(), ctx.root, frontend="page-after")
    second.notebooks[name] = json.loads(json.dumps(first.notebooks[name]))
    second.dirty[name] = True
    second.report()
    later = ChatLive(second.registry, lambda: None, folder=kept)
    restored = await later.restore(["turn-1", "turn-2"])

    assert restored == [str((ctx.root / name).resolve())]
    assert second.notebooks[name]["cells"] == before  # as before turn-1, unsaved edit and all
    assert await later.restore(["turn-2"]) == [str((ctx.root / name).resolve())]
    assert second.sources(name)[1] == "x = 'agent'"  # before turn-2: turn-1's edit stays


async def test_a_rewind_the_user_declines_leaves_the_notebook(
    ctx: ToolContext, page: FakePage
) -> None:
    name = _notebook(ctx.root)
    page.open(name)
    page.refuse_restore = True
    await nb_edit.call({"path": name, "mode": "insert", "index": 0, "source": "one"}, ctx)
    assert isinstance(ctx.live, ChatLive)
    assert await ctx.live.restore(["turn-1"]) == []
    assert page.sources(name)[0] == "one"
