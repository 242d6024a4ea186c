"""The fixture server's tools, resources and prompts (see :mod:`.mcp_server`).

No ``from __future__ import annotations`` here: the SDK evaluates the tool functions'
annotations (``Context`` must resolve), so this module imports ``mcp`` at the top and is
itself imported only by the fixture program.
"""

import os
from pathlib import Path

import anyio
from mcp.server.mcpserver import Context, MCPServer

__all__ = ["build"]


def build(name: str = "fixture", extra_tools: int = 0) -> MCPServer:
    """The fixture ``MCPServer``."""
    srv = MCPServer(name, log_level="WARNING")

    @srv.tool()
    def echo(text: str) -> str:
        """Echo the text back."""
        return text

    @srv.tool()
    def pid() -> int:
        """The server's process id."""
        return os.getpid()

    @srv.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @srv.tool()
    def crash() -> str:
        """Exit the server process at once, without answering."""
        os._exit(1)

    @srv.tool()
    def append_then_crash(path: str, text: str = "ran") -> str:
        """Append a line to the file ``path`` (a side effect), then exit without answering."""
        with Path(path).open("a", encoding="utf-8") as f:
            f.write(text + "\n")
        os._exit(1)

    @srv.tool()
    async def add_tool(tool: str, ctx: Context, announce: str = "both") -> str:
        """Register a new tool named ``tool`` and announce that the tool list changed."""

        def dynamic(x: int = 0) -> str:
            return f"{tool}:{x}"

        srv.add_tool(dynamic, name=tool, description=f"Added at runtime: {tool}.")
        if announce in ("listen", "both"):
            await ctx.notify_tools_changed()
        if announce in ("session", "both"):
            await ctx.request_context.session.send_tool_list_changed()
        return f"added {tool}"

    @srv.tool()
    def http_header(header: str, ctx: Context) -> str:
        """The value of an HTTP request header (streamable HTTP only; empty otherwise)."""
        request = ctx.request_context.request
        headers = getattr(request, "headers", None)
        return "" if headers is None else str(headers.get(header, ""))

    @srv.tool()
    def where() -> dict[str, str]:
        """The server's working folder and its FIXTURE_VAR environment variable."""
        return {"cwd": str(Path.cwd()), "fixture_var": os.environ.get("FIXTURE_VAR", "")}

    @srv.tool()
    async def sleep(seconds: float) -> str:
        """Answer after ``seconds``."""
        await anyio.sleep(seconds)
        return "slept"

    for i in range(extra_tools):
        _add_numbered(srv, i)

    @srv.resource("fixture://greeting", mime_type="text/plain", description="A fixed greeting.")
    def greeting() -> str:
        return "hello from the fixture"

    @srv.resource("fixture://crash", mime_type="text/plain")
    def crash_resource() -> str:
        os._exit(1)

    @srv.resource("fixture://pid", mime_type="text/plain")
    def pid_resource() -> str:
        return str(os.getpid())

    @srv.prompt()
    def review(code: str, focus: str = "") -> str:
        """Ask for a code review."""
        return f"Please review this code{f' for {focus}' if focus else ''}:\n{code}"

    return srv


def _add_numbered(srv: MCPServer, i: int) -> None:
    def numbered(x: int = 0) -> str:
        return f"tool_{i:03d}:{x}"

    srv.add_tool(
        numbered,
        name=f"tool_{i:03d}",
        description=f"Numbered fixture tool {i}.\nA second line the summary leaves out.",
    )
