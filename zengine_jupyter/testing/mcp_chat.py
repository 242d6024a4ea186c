"""Helpers for chats with MCP servers: settings files, the chat's MCP extension, tool results.

Used by the engine's MCP tests and ``benchmarks/bench_mcp.py``. Importing it does not import
the ``mcp`` SDK.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zengine_jupyter.testing._settings import provider_settings
from zengine_jupyter.testing.components import in_ci, require_component
from zengine_jupyter.testing.mcp_server import fixture_argv

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from zengine_jupyter.engine import Session
    from zengine_jupyter.engine.mcp import McpExtension
    from zengine_jupyter.integrations.mcp import McpManager
    from zengine_jupyter.protocol import ApprovalDecision, ApprovalRequest

__all__ = [
    "EVERYTHING_JS",
    "RecordingApprovals",
    "everything_server",
    "kill_and_wait",
    "mcp_extension",
    "settings_text",
    "stdio_server",
    "tool_results",
    "until_disconnected",
]

EVERYTHING_JS = (
    Path(__file__).parents[2]
    / "tests/fixtures/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
)
"""Where ``scripts/test`` installs server-everything (``npm ci --prefix tests/fixtures/npm``)."""


def stdio_server(*flags: str, **extra: Any) -> dict[str, Any]:
    """A ``[mcp.servers.NAME]`` table running the fixture server over stdio with ``flags``."""
    argv = fixture_argv(*flags)
    return {"command": argv[0], "args": argv[1:], **extra}


def everything_server(**extra: Any) -> dict[str, Any]:
    """A table for ``@modelcontextprotocol/server-everything`` over stdio (skips if absent)."""
    import pytest

    node = require_component("node")
    if not EVERYTHING_JS.exists():
        reason = "server-everything is not installed; run: npm ci --prefix tests/fixtures/npm"
        if in_ci():
            pytest.fail(f"CI=true and {reason}", pytrace=False)
        pytest.skip(reason)
    return {"command": node, "args": [str(EVERYTHING_JS), "stdio"], **extra}


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return json.dumps(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")


def settings_text(
    base_url: str | None,
    servers: Mapping[str, Mapping[str, Any]] = {},
    *,
    allow: Sequence[str] = (),
) -> str:
    """A ``settings.toml``: the provider at ``base_url`` (if given), ``permissions.allow`` and
    one ``[mcp.servers.NAME]`` table per server."""
    lines: list[str] = []
    if base_url is not None:
        lines.append(provider_settings(base_url).rstrip("\n"))
    if allow:
        lines.append(f"[permissions]\nallow = {_toml(list(allow))}")
    for name, table in servers.items():
        body = "\n".join(f"{key} = {_toml(value)}" for key, value in table.items())
        lines.append(f"[mcp.servers.{json.dumps(name)}]\n{body}")
    return "\n\n".join(lines) + "\n"


def mcp_extension(session: Session) -> McpExtension:
    """The chat's MCP extension."""
    from zengine_jupyter.engine.mcp import McpExtension

    return next(e for e in session.extensions if isinstance(e, McpExtension))


def tool_results(request: Mapping[str, Any]) -> list[tuple[str, bool]]:
    """``(text, is_error)`` of each tool result in the last message of an Anthropic request."""
    out: list[tuple[str, bool]] = []
    for block in request["messages"][-1]["content"]:
        if block.get("type") != "tool_result":
            continue
        content = block.get("content", "")
        if isinstance(content, list):
            content = "".join(part.get("text", "") for part in content)
        out.append((str(content), bool(block.get("is_error", False))))
    return out


def kill_and_wait(pid: int, timeout_s: float = 10.0) -> None:
    """SIGKILL ``pid`` and wait until it is gone (reaped by its parent, or a zombie)."""
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return
        if state in ("Z", "X"):
            return
        time.sleep(0.01)
    raise TimeoutError(f"process {pid} still alive after SIGKILL")


async def until_disconnected(manager: McpManager | None, timeout_s: float = 10.0) -> None:
    """Until ``manager`` has seen its server drop (after :func:`kill_and_wait`: the engine
    learns of the death from the closed pipe some milliseconds later, more under load). A call
    racing the drop itself is in flight when the connection goes, so it fails rather than be
    sent twice (see the crash tests); a test of the reconnect waits for this first."""
    assert manager is not None
    async with asyncio.timeout(timeout_s):
        while manager.status.state != "disconnected":  # noqa: ASYNC110 (its own event is private)
            await asyncio.sleep(0.01)


class RecordingApprovals:
    """An approval port that allows once (or denies, per tool) and remembers each question."""

    def __init__(self, deny: Sequence[str] = ()) -> None:
        self.deny = set(deny)
        self.asked: list[ApprovalRequest] = []

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        from zengine_jupyter.protocol import ApprovalDecision

        self.asked.append(request)
        if request.tool in self.deny:
            return ApprovalDecision(action="deny", message="no")
        return ApprovalDecision(action="allow_once")
