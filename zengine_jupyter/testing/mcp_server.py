"""A fixture MCP server written with the SDK's ``MCPServer`` (2.x), for tests and benchmarks.

Run it as a program (it imports ``mcp``; nothing imports this module at ``%load_ext`` time)::

    python -m zengine_jupyter.testing.mcp_server [--http PORT] [--tools N] [--name NAME]
                                                 [--fail-start] [--start-delay SECONDS]

over stdio (default) or streamable HTTP on 127.0.0.1:PORT (path ``/mcp``). It offers:

- tools ``echo(text)``, ``pid()`` (its process id), ``add(a, b)``, ``crash()`` (exits at once,
  without answering), ``append_then_crash(path, text)`` (appends ``text`` and a newline to
  ``path``, then exits without answering: a side effect whose call never returns),
  ``add_tool(name, announce)`` (registers a tool ``name`` at runtime and announces the change:
  ``announce`` = ``listen`` (2026-07-28 event stream), ``session`` (the 2025-11-25
  notification) or ``both``), ``http_header(header)`` (a request header, over
  HTTP), ``where()`` (its cwd and ``$FIXTURE_VAR``), ``sleep(seconds)``, and ``--tools N``
  more: ``tool_000`` ... (so the base server has :data:`BASE_TOOLS` tools);
- resources ``fixture://greeting`` (text), ``fixture://pid`` and ``fixture://crash`` (reading it
  exits the server without answering);
- prompt ``review(code, focus="")``.

``--fail-start`` writes a line to stderr and exits 3 before speaking MCP (an unstartable server);
``--fail-start-if-exists FILE`` does so only while FILE exists (a server made unstartable later);
``--start-delay SECONDS`` sleeps that long before speaking MCP (a slow server).
:func:`fixture_argv` builds the command line; :func:`running_http_fixture` runs it over HTTP.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from zengine_jupyter.testing._net import free_port

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    from zengine_jupyter.integrations.mcp import McpServerEntry

__all__ = [
    "BASE_TOOLS",
    "HttpFixture",
    "build_server",
    "fixture_argv",
    "fixture_children",
    "main",
    "running_http_fixture",
    "stdio_entry",
]

BASE_TOOLS = 9
"""Tools the fixture has without ``--tools``."""


def fixture_argv(*flags: str) -> list[str]:
    """``[python, -m, zengine_jupyter.testing.mcp_server, *flags]`` with this interpreter."""
    return [sys.executable, "-m", "zengine_jupyter.testing.mcp_server", *flags]


def stdio_entry(
    name: str = "fixture", *flags: str, disabled_tools: frozenset[str] = frozenset()
) -> McpServerEntry:
    """A stdio :class:`McpServerEntry` that runs the fixture with ``flags``."""
    from zengine_jupyter.integrations.mcp import McpServerEntry

    argv = fixture_argv(*flags)
    return McpServerEntry(
        name, command=argv[0], args=tuple(argv[1:]), disabled_tools=disabled_tools
    )


def build_server(name: str = "fixture", extra_tools: int = 0) -> object:
    """The ``MCPServer`` (typed ``object`` so callers need not import the SDK)."""
    from zengine_jupyter.testing._mcp_app import build

    return build(name, extra_tools)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="zengine_jupyter.testing.mcp_server")
    parser.add_argument("--http", type=int, metavar="PORT")
    parser.add_argument("--tools", type=int, default=0)
    parser.add_argument("--name", default="fixture")
    parser.add_argument("--fail-start", action="store_true")
    parser.add_argument("--fail-start-if-exists", type=Path, metavar="FILE")
    parser.add_argument("--start-delay", type=float, default=0.0, metavar="SECONDS")
    args = parser.parse_args(argv)
    if args.fail_start or (args.fail_start_if_exists and args.fail_start_if_exists.exists()):
        sys.stderr.write("fixture: refusing to start (--fail-start)\n")
        raise SystemExit(3)
    if args.start_delay > 0:
        time.sleep(args.start_delay)
    srv = build_server(args.name, args.tools)
    if args.http is not None:
        srv.run("streamable-http", host="127.0.0.1", port=args.http)  # type: ignore[attr-defined]
    else:
        srv.run("stdio")  # type: ignore[attr-defined]


def fixture_children() -> list[int]:
    """Fixture-server processes (alive or zombie) whose parent is this process (Linux /proc)."""
    found: list[int] = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            stat = (proc / "stat").read_text()
            cmdline = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == os.getpid() and b"zengine_jupyter.testing.mcp_server" in cmdline:
            found.append(int(proc.name))
    return found


@dataclass(frozen=True)
class HttpFixture:
    url: str
    pid: int
    port: int


@contextlib.asynccontextmanager
async def running_http_fixture(
    *flags: str, port: int | None = None, timeout_s: float = 30.0
) -> AsyncIterator[HttpFixture]:
    """The fixture over streamable HTTP on 127.0.0.1 (``port``, else a free one); killed and
    reaped after."""
    port = port or free_port()
    proc = await asyncio.create_subprocess_exec(
        *fixture_argv("--http", str(port), *flags),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        async with asyncio.timeout(timeout_s):
            while True:
                if proc.returncode is not None:
                    raise RuntimeError(f"fixture server exited with {proc.returncode}")
                try:
                    _, writer = await asyncio.open_connection("127.0.0.1", port)
                except OSError:
                    await asyncio.sleep(0.05)
                    continue
                writer.close()
                await writer.wait_closed()
                break
        yield HttpFixture(f"http://127.0.0.1:{port}/mcp", proc.pid, port)
    finally:
        if proc.returncode is None:
            proc.kill()
        await proc.wait()


if __name__ == "__main__":
    main()
