"""The file tools on hostile input: bad paths are tool errors, Read streams, modes are kept."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from zengine_jupyter.engine.tools import (
    EditTool,
    NotebookEditTool,
    ReadTool,
    Tool,
    ToolContext,
    WriteTool,
)
from zengine_jupyter.protocol import ToolError

TOOLS: dict[str, tuple[Tool[Any], dict[str, Any]]] = {
    "Read": (ReadTool(), {}),
    "Write": (WriteTool(), {"content": "x\n"}),
    "Edit": (EditTool(), {"old_string": "a", "new_string": "b"}),
    "NotebookEdit": (NotebookEditTool(), {"index": 0, "source": "1"}),
}


async def engine_call(tool: Tool[Any], arguments: dict[str, Any], ctx: ToolContext) -> str:
    """parse, paths (what the gate sees) and run, in the order the engine calls them; a
    ToolError is the model's error result. Any other exception fails the test."""
    try:
        args = tool.parse(arguments)
        tool.paths(args, ctx)
        out = await tool.run(args, ctx)
    except ToolError as exc:
        return f"error: {exc}"
    return ("error: " if out.is_error else "ok: ") + out.content


@pytest.mark.parametrize("name", sorted(TOOLS))
@pytest.mark.parametrize(
    ("path", "named"),
    [
        ("nul\0byte.py", "NUL"),
        ("x" * 300 + ".ipynb", "too long"),
        ("afile/child.ipynb", "afile"),
        ("lone\ud800surrogate.ipynb", "cannot be encoded"),
    ],
)
async def test_bad_paths_are_tool_errors_naming_the_path(
    ctx: ToolContext, name: str, path: str, named: str
) -> None:
    """A NUL in a path, a 300-character name, a path under a file and an unencodable name:
    each is the tool's error result naming the problem, never an exception out of the turn
    (issue 19.2: ValueError, ENAMETOOLONG and FileExistsError escaped the turn on main)."""
    (ctx.root / "afile").write_text("a file, not a folder\n")
    tool, extra = TOOLS[name]
    got = await engine_call(tool, {"path": path, **extra}, ctx)
    assert got.startswith("error: "), got
    assert named in got, got
    assert list(ctx.root.iterdir()) == [ctx.root / "afile"]


READ_HUGE = """
import asyncio, json, sys
from pathlib import Path
from zengine_jupyter.engine.tools import ReadTool, ReadTracker, ShellRunner, ToolContext

def status(key):  # kB, from /proc/self/status
    for line in open("/proc/self/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1])

root = Path(sys.argv[1])
ctx = ToolContext(root=root, artifacts=root / "art", reads=ReadTracker(),
                  shells=ShellRunner(root, root / "art"))
read = ReadTool()
asyncio.run(read.call({"path": "tiny.txt"}, ctx))  # imports and threads warmed up
before = status("VmRSS")
with open("/proc/self/clear_refs", "w") as handle:
    handle.write("5")  # reset the peak (VmHWM) to the current RSS
out = asyncio.run(read.call({"path": "huge.txt"}, ctx))
after = status("VmHWM")
print(json.dumps({"growth_kb": after - before, "content": out.content[-200:],
                  "chars": len(out.content), "error": out.is_error}))
"""


def test_read_of_one_huge_line_streams(tmp_path: Path) -> None:
    """A file with one 200 MB line: Read shows its first 2,000 characters and the count of
    the rest, and memory grows by a small multiple of what it returns (main loaded the whole
    line: 600 MB -> 1.8 GB RSS)."""
    size = 200 * 1024 * 1024
    (tmp_path / "tiny.txt").write_text("hi\n")
    with (tmp_path / "huge.txt").open("wb") as handle:
        block = b"a" * (1 << 20)
        for _ in range(size >> 20):
            handle.write(block)
        handle.write(b"\nsecond line\n")
    done = subprocess.run([sys.executable, "-c", READ_HUGE, str(tmp_path)], capture_output=True,
                          text=True, timeout=120, check=True)  # fmt: skip
    got = json.loads(done.stdout)
    print(f"Read of a {size >> 20} MB line: peak RSS grew {got['growth_kb'] / 1024:.1f} MB")
    assert not got["error"]
    assert f"[... {size - 2000} more chars]" in got["content"]
    assert got["content"].endswith("     2\tsecond line")
    assert got["growth_kb"] < 64 * 1024


WRITE_UNDER_UMASK = """
import asyncio, os, stat, sys
from pathlib import Path
from zengine_jupyter.engine.tools import ReadTracker, ShellRunner, ToolContext, WriteTool

root = Path(sys.argv[1])
os.umask(int(sys.argv[2], 8))
ctx = ToolContext(root=root, artifacts=root / "art", reads=ReadTracker(),
                  shells=ShellRunner(root, root / "art"))
out = asyncio.run(WriteTool().call({"path": sys.argv[3], "content": "x"}, ctx))
assert not out.is_error, out.content
print(oct(stat.S_IMODE(os.stat(root / sys.argv[3]).st_mode)))
"""


@pytest.mark.parametrize(("umask", "mode"), [("022", "0o644"), ("077", "0o600"), ("002", "0o664")])
def test_write_creates_files_under_the_umask(tmp_path: Path, umask: str, mode: str) -> None:
    """Write of a new file honours the umask like any editor (main made every file 0600)."""
    name = f"sub/new-{umask}.txt"
    done = subprocess.run([sys.executable, "-c", WRITE_UNDER_UMASK, str(tmp_path), umask, name],
                          capture_output=True, text=True, timeout=60, check=True)  # fmt: skip
    assert done.stdout.strip() == mode


async def test_edit_and_write_keep_an_existing_files_mode(ctx: ToolContext) -> None:
    secret = ctx.root / "secret.env"
    secret.write_text("a=1\n")
    secret.chmod(0o600)
    await ReadTool().call({"path": "secret.env"}, ctx)
    out = await EditTool().call({"path": "secret.env", "old_string": "1", "new_string": "2"}, ctx)
    assert not out.is_error, out.content
    out = await WriteTool().call({"path": "secret.env", "content": "a=3\n"}, ctx)
    assert not out.is_error, out.content
    assert secret.read_text() == "a=3\n"
    assert oct(secret.stat().st_mode & 0o777) == "0o600"
    assert [p.name for p in ctx.root.iterdir()] == ["secret.env"]  # no temp file left


async def test_a_symlink_to_a_project_file_is_written_at_its_target(ctx: ToolContext) -> None:
    """The gate sees the resolved target, and the write goes to that same file (the link
    stays a link)."""
    (ctx.root / "real.txt").write_text("old\n")
    (ctx.root / "alias.txt").symlink_to("real.txt")
    await ReadTool().call({"path": "alias.txt"}, ctx)
    out = await WriteTool().call({"path": "alias.txt", "content": "new\n"}, ctx)
    assert not out.is_error, out.content
    assert (ctx.root / "alias.txt").is_symlink()
    assert (ctx.root / "real.txt").read_text() == "new\n"
    assert WriteTool().paths(WriteTool().parse({"path": "alias.txt", "content": ""}), ctx) == [
        Path(os.path.realpath(ctx.root / "real.txt"))
    ]


async def test_read_refuses_a_fifo_without_hanging(ctx: ToolContext) -> None:
    os.mkfifo(ctx.root / "pipe")
    got = await engine_call(ReadTool(), {"path": "pipe"}, ctx)
    assert got.startswith("error: ")
    assert "not a regular file" in got
