"""``zengine run`` (the real command, a subprocess) with MCP servers that start slowly (issue
21.6, acceptance 5): the turn's first request waits for them, at most ``mcp.startup_wait``; a
server slower than that is named as starting and its tools join a later request."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import zengine_jupyter
from zengine_jupyter.testing import ProviderServer, Reply, ScriptedToolCall, run_cli
from zengine_jupyter.testing.mcp_chat import settings_text, stdio_server

pytestmark = pytest.mark.slow

CHECKOUT = str(Path(zengine_jupyter.__file__).parents[1])
"""The fixture server must be this checkout's (``--start-delay``), whatever is installed."""


def slow_server(delay_s: float) -> dict[str, Any]:
    """A stdio fixture server that takes ``delay_s`` before it speaks MCP."""
    return stdio_server("--start-delay", str(delay_s), env={"PYTHONPATH": CHECKOUT})


def tool_names(request: dict[str, Any]) -> set[str]:
    return {t["name"] for t in request["tools"]}


async def test_the_first_request_lists_the_tools_of_a_server_that_takes_2_s(
    project: Path, zengine_home: Path
) -> None:
    async with ProviderServer() as model:
        servers = {"slow": slow_server(2)}
        # the default wait (10 s) covers a 2 s server; a test machine shared by many runs may
        # take longer than that to start Python and the SDK, so this test waits longer
        text = settings_text(model.base_url, servers) + "\n[mcp]\nstartup_wait = 60\n"
        (zengine_home / "settings.toml").write_text(text)
        model.add(Reply(text=("ready",)))
        code, out, err = await run_cli("run", "hello", cwd=project, limit_s=90)
    assert code == 0, err
    assert out.strip() == "ready"
    (first,) = model.requests
    assert {"mcp__slow__echo", "mcp__slow__pid"} <= tool_names(first.json), err
    assert "[waiting for MCP servers (slow)]" in err
    assert "still starting" not in err


async def test_a_server_slower_than_the_wait_joins_a_later_request(
    project: Path, zengine_home: Path
) -> None:
    look = Reply(tool_calls=(ScriptedToolCall("Glob", {"pattern": "*"}),), delay_s=2)
    async with ProviderServer() as model:
        servers = {"slower": slow_server(3)}
        text = settings_text(model.base_url, servers) + "\n[mcp]\nstartup_wait = 0.5\n"
        (zengine_home / "settings.toml").write_text(text)
        model.add(look)
        run = asyncio.create_task(run_cli("run", "look around", cwd=project, limit_s=120))
        answered = 0
        while not run.done():  # the model looks around until the server's tools are offered
            if len(model.requests) > answered:
                answered = len(model.requests)
                offered = "mcp__slower__echo" in tool_names(model.requests[-1].json)
                model.add(Reply(text=("done",)) if offered else look)
            await asyncio.sleep(0.05)
        code, out, err = await run
    assert code == 0, err
    assert out.strip() == "done"
    first, *later = model.requests
    assert not any(name.startswith("mcp__slower__") for name in tool_names(first.json))
    assert "mcp__slower__echo" in tool_names(later[-1].json)
    assert "[waiting for MCP servers (slower)]" in err
    assert "MCP servers still starting after 0.5 s: slower" in err
