"""NotebookEdit keeps notebooks valid; Glob and Grep respect ignores."""

from __future__ import annotations

import os
import subprocess

import nbformat

from zengine_jupyter.engine.tools import (
    GlobTool,
    GrepTool,
    NotebookEditTool,
    ReadTool,
    ToolContext,
)
from zengine_jupyter.testing.components import require_component

nb_edit, read, glob, grep = NotebookEditTool(), ReadTool(), GlobTool(), GrepTool()


def make_notebook(ctx: ToolContext) -> list[str]:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Analysis"),
        nbformat.v4.new_code_cell("import pandas as pd"),
        nbformat.v4.new_code_cell("df = pd.read_csv('data.csv')"),
    ]
    nb.cells[2].outputs = [nbformat.v4.new_output("stream", name="stdout", text="loaded\n")]
    nbformat.write(nb, ctx.root / "a.ipynb")
    return [c.id for c in nb.cells]


async def test_read_shows_cells_with_ids(ctx: ToolContext) -> None:
    ids = make_notebook(ctx)
    out = await read.call({"path": "a.ipynb"}, ctx)
    assert f"--- cell 2 [code] id={ids[2]}" in out.content
    assert "[output stream] loaded" in out.content


async def test_replace_insert_delete_keep_the_notebook_valid(ctx: ToolContext) -> None:
    ids = make_notebook(ctx)
    await read.call({"path": "a.ipynb"}, ctx)
    replaced = await nb_edit.call(
        {"path": "a.ipynb", "cell_id": ids[2], "source": "df = pd.read_parquet('d.pq')"}, ctx
    )
    assert not replaced.is_error, replaced.content
    inserted = await nb_edit.call(
        {"path": "a.ipynb", "mode": "insert", "cell_id": ids[0], "cell_type": "markdown",
         "source": "## Load"}, ctx,
    )  # fmt: skip
    assert not inserted.is_error, inserted.content
    deleted = await nb_edit.call({"path": "a.ipynb", "mode": "delete", "index": 2}, ctx)
    assert not deleted.is_error, deleted.content

    nb = nbformat.read(ctx.root / "a.ipynb", as_version=4)
    nbformat.validate(nb)
    assert [c.source for c in nb.cells] == ["# Analysis", "## Load", "df = pd.read_parquet('d.pq')"]
    assert nb.cells[2].outputs == []  # a replaced code cell loses its stale outputs
    assert nb.cells[2].id == ids[2]


async def test_notebook_edit_errors_name_what_to_do(ctx: ToolContext) -> None:
    make_notebook(ctx)
    unread = await nb_edit.call({"path": "a.ipynb", "index": 0, "source": "x"}, ctx)
    assert "Read it first" in unread.content
    await read.call({"path": "a.ipynb"}, ctx)
    bad_id = await nb_edit.call({"path": "a.ipynb", "cell_id": "nope", "source": "x"}, ctx)
    assert bad_id.is_error
    assert "the notebook's ids are" in bad_id.content
    (ctx.root / "b.py").write_text("x")
    assert "not a notebook" in (await nb_edit.call({"path": "b.py", "index": 0}, ctx)).content


async def test_glob_and_grep_leave_ignored_files_out(ctx: ToolContext) -> None:
    git = require_component("git")
    subprocess.run([git, "init", "-q"], cwd=ctx.root, check=True)
    (ctx.root / ".gitignore").write_text("build/\n")
    (ctx.root / "src" / "pkg").mkdir(parents=True)
    (ctx.root / "src" / "pkg" / "mod.py").write_text("def load():\n    return 'TODO: x'\n")
    (ctx.root / "src" / "top.py").write_text("# TODO later\nvalue = 1\n")
    (ctx.root / "build").mkdir()
    (ctx.root / "build" / "gen.py").write_text("# TODO generated\n")
    (ctx.root / "notes.md").write_text("todo\n")

    found = await glob.call({"pattern": "**/*.py"}, ctx)
    assert sorted(found.content.splitlines()) == ["src/pkg/mod.py", "src/top.py"]
    only_top = await glob.call({"pattern": "src/*.py"}, ctx)
    assert only_top.content.splitlines() == ["src/top.py"]

    files = await grep.call({"pattern": "TODO"}, ctx)
    assert files.content.splitlines() == ["src/pkg/mod.py", "src/top.py"]
    content = await grep.call(
        {"pattern": "todo", "case_insensitive": True, "output_mode": "content", "glob": "*.md"},
        ctx,
    )
    assert content.content == "notes.md:1:todo"
    counts = await grep.call({"pattern": "TODO|value", "output_mode": "count"}, ctx)
    assert counts.content.splitlines() == ["src/pkg/mod.py:1", "src/top.py:2"]
    ctx_lines = await grep.call(
        {"pattern": "value", "output_mode": "content", "context": 1, "path": "src/top.py"}, ctx
    )
    assert ctx_lines.content.splitlines() == ["src/top.py-1-# TODO later", "src/top.py:2:value = 1"]
    bad = await grep.call({"pattern": "("}, ctx)
    assert bad.is_error
    assert "invalid regular expression" in bad.content


async def test_search_outside_git_walks_and_skips_tool_folders(ctx: ToolContext) -> None:
    (ctx.root / "node_modules" / "x").mkdir(parents=True)
    (ctx.root / "node_modules" / "x" / "i.js").write_text("needle")
    (ctx.root / "a.js").write_text("needle")
    assert (await grep.call({"pattern": "needle"}, ctx)).content == "a.js"
    assert (await glob.call({"pattern": "**/*.{js,ts}"}, ctx)).content == "a.js"


def test_opening_the_engine_does_not_import_nbformat() -> None:
    """nbformat pulls in jsonschema (seconds): only a notebook call may import it."""
    import subprocess
    import sys

    code = (
        "import sys, zengine_jupyter.engine; "
        "print('nbformat' in sys.modules, 'jsonschema' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.split() == ["False", "False"]


async def test_listing_is_the_engines_own_walk(ctx: ToolContext) -> None:
    """No git: .git entries and bare-repository internals are never listed, a nested work
    tree's files are, a folder named explicitly is listed though ignored, fifos are skipped."""
    git = require_component("git")
    subprocess.run([git, "init", "-q"], cwd=ctx.root, check=True)
    (ctx.root / ".gitignore").write_text("build/\n")
    (ctx.root / "build").mkdir()
    (ctx.root / "build" / "out.txt").write_text("needle\n")
    subprocess.run([git, "init", "-q", "--bare", "fixture.git"], cwd=ctx.root, check=True)
    subprocess.run([git, "init", "-q", "nested"], cwd=ctx.root, check=True)
    (ctx.root / "nested" / "n.txt").write_text("needle\n")
    (ctx.root / "wt").mkdir()
    (ctx.root / "wt" / ".git").write_text("gitdir: ../fixture.git\n")
    os.mkfifo(ctx.root / "pipe.txt")

    everything = await glob.call({"pattern": "**"}, ctx)
    assert sorted(everything.content.splitlines()) == [".gitignore", "nested/n.txt"]
    assert (await grep.call({"pattern": "needle"}, ctx)).content == "nested/n.txt"
    assert (await grep.call({"pattern": "needle", "path": "build"}, ctx)).content == (
        "build/out.txt"
    )
