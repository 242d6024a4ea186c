"""Read, Write, Edit on real files: the read-before-edit rule and exact replacement."""

from __future__ import annotations

import os
from pathlib import Path

from zengine_jupyter.engine.tools import EditTool, ReadTool, ToolContext, WriteTool

read, write, edit = ReadTool(), WriteTool(), EditTool()


async def test_read_shows_numbered_lines_and_ranges(ctx: ToolContext) -> None:
    (ctx.root / "a.py").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    out = await read.call({"path": "a.py", "offset": 3, "limit": 2}, ctx)
    assert not out.is_error
    assert out.content.splitlines() == [
        "     3\tline 3",
        "     4\tline 4",
        "[lines 3-4 shown; the file goes on: use offset=5]",
    ]
    whole = await read.call({"path": "a.py"}, ctx)
    assert whole.content.splitlines()[-1] == "    10\tline 10"


async def test_read_refuses_binary_missing_and_folders(ctx: ToolContext) -> None:
    (ctx.root / "blob").write_bytes(b"\x00\x01\x02")
    (ctx.root / "sub").mkdir()
    assert "binary file" in (await read.call({"path": "blob"}, ctx)).content
    assert "does not exist" in (await read.call({"path": "nope.py"}, ctx)).content
    assert "is a folder" in (await read.call({"path": "sub"}, ctx)).content
    bad = await read.call({"path": "a", "offset": 0}, ctx)
    assert bad.is_error
    assert "offset" in bad.content


async def test_edit_requires_a_read_and_refuses_stale_files(ctx: ToolContext) -> None:
    path = ctx.root / "pipe.py"
    path.write_text("def f():\n    return 1\n")
    args = {"path": "pipe.py", "old_string": "return 1", "new_string": "return 2"}
    not_read = await edit.call(args, ctx)
    assert not_read.is_error
    assert "Read it first" in not_read.content

    await read.call({"path": "pipe.py"}, ctx)
    path.write_text("def f():\n    return 1  # changed by someone else\n")
    os.utime(path, ns=(1, 1))
    stale = await edit.call(args, ctx)
    assert stale.is_error
    assert "changed on disk since you read it" in stale.content
    assert "Read it again" in stale.content

    await read.call({"path": "pipe.py"}, ctx)
    done = await edit.call(args, ctx)
    assert not done.is_error, done.content
    assert path.read_text() == "def f():\n    return 2  # changed by someone else\n"
    assert done.changed_paths == (path,)
    assert done.diff is not None
    assert "-    return 1" in done.diff
    # the model knows what it wrote: a second edit needs no new read
    again = await edit.call({"path": "pipe.py", "old_string": "2", "new_string": "3"}, ctx)
    assert not again.is_error


async def test_edit_must_be_unique_unless_replace_all(ctx: ToolContext) -> None:
    path = ctx.root / "x.py"
    path.write_text("a = 1\nb = 1\n")
    await read.call({"path": "x.py"}, ctx)
    dup = await edit.call({"path": "x.py", "old_string": "= 1", "new_string": "= 2"}, ctx)
    assert dup.is_error
    assert "appears 2 times" in dup.content
    missing = await edit.call({"path": "x.py", "old_string": "zzz", "new_string": "y"}, ctx)
    assert "not found" in missing.content
    done = await edit.call(
        {"path": "x.py", "old_string": "= 1", "new_string": "= 2", "replace_all": True}, ctx
    )
    assert not done.is_error
    assert path.read_text() == "a = 2\nb = 2\n"


async def test_edit_keeps_crlf_files_and_permissions(ctx: ToolContext) -> None:
    path = ctx.root / "win.sh"
    path.write_bytes(b"echo a\r\necho b\r\n")
    path.chmod(0o755)
    await read.call({"path": "win.sh"}, ctx)
    out = await edit.call(
        {"path": "win.sh", "old_string": "echo a\necho b", "new_string": "echo c\necho d"}, ctx
    )
    assert not out.is_error, out.content
    assert path.read_bytes() == b"echo c\r\necho d\r\n"
    assert path.stat().st_mode & 0o777 == 0o755


async def test_write_creates_new_files_but_overwrites_only_after_read(ctx: ToolContext) -> None:
    created = await write.call({"path": "new/dir/f.txt", "content": "hi\n"}, ctx)
    assert not created.is_error
    assert (ctx.root / "new" / "dir" / "f.txt").read_text() == "hi\n"
    (ctx.root / "old.txt").write_text("keep")
    refused = await write.call({"path": "old.txt", "content": "x"}, ctx)
    assert refused.is_error
    assert (ctx.root / "old.txt").read_text() == "keep"
    await read.call({"path": "old.txt"}, ctx)
    assert not (await write.call({"path": "old.txt", "content": "x"}, ctx)).is_error
    assert (ctx.root / "old.txt").read_text() == "x"


async def test_unknown_arguments_are_reported_to_the_model(ctx: ToolContext) -> None:
    out = await read.call({"file": "a.py"}, ctx)
    assert out.is_error
    assert "path: Field required" in out.content
    assert "file: Extra inputs are not permitted" in out.content


async def test_paths_are_resolved_for_the_gate(ctx: ToolContext, tmp_path: Path) -> None:
    args = read.parse({"path": "../outside.txt"})
    assert read.paths(args, ctx) == [tmp_path / "outside.txt"]
    assert ctx.display(ctx.root / "a" / "b.py") == "a/b.py"
