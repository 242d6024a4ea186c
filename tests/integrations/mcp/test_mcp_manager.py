"""McpManager against the real fixture server over stdio and streamable HTTP (items 2 and 5)."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from zengine_jupyter.integrations.mcp import McpManager, McpManagerOptions, McpServerEntry
from zengine_jupyter.protocol import McpConnectionError, McpRequestError
from zengine_jupyter.testing import process_gone
from zengine_jupyter.testing.mcp_chat import until_disconnected
from zengine_jupyter.testing.mcp_server import (
    BASE_TOOLS,
    fixture_children,
    running_http_fixture,
    stdio_entry,
)

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

pytestmark = pytest.mark.slow


async def _pid(manager: McpManager) -> int:
    result = await manager.call_tool("pid")
    assert result.structured is not None
    return int(result.structured["result"])


@pytest.fixture
async def stdio_manager() -> AsyncIterator[McpManager]:
    async with McpManager(stdio_entry("fix.ture", disabled_tools=frozenset({"add"}))) as manager:
        yield manager


async def test_stdio_tools_resources_prompts_and_disabled_tools(stdio_manager: McpManager) -> None:
    status = await stdio_manager.wait_ready(30)
    assert status.state == "ready", status.reason
    assert status.protocol_version == "2026-07-28"
    names = {t.qualified: t.name for t in stdio_manager.tools}
    assert "mcp__fix_ture__echo" in names
    assert "mcp__fix_ture__add" not in names  # disabled_tools
    assert status.tool_count == BASE_TOOLS - 1
    echo = await stdio_manager.call_tool("echo", {"text": "héllo"})
    assert (echo.text(), echo.is_error) == ("héllo", False)
    unknown = await stdio_manager.call_tool("no_such_tool", {})
    assert unknown.is_error
    resources = {r.uri: r for r in await stdio_manager.list_resources()}
    assert resources["fixture://greeting"].description == "A fixed greeting."
    (content,) = await stdio_manager.read_resource("fixture://greeting")
    assert content.text == "hello from the fixture"
    with pytest.raises(McpRequestError, match=r"'fix\.ture' rejected resource 'fixture://nope'"):
        await stdio_manager.read_resource("fixture://nope")
    (prompt,) = stdio_manager.prompts
    assert prompt.command == "mcp__fix_ture__review"
    assert [(a.name, a.required) for a in prompt.arguments] == [("code", True), ("focus", False)]
    filled = await stdio_manager.get_prompt("review", {"code": "x = 1", "focus": "style"})
    assert filled.messages[0].content.text == "Please review this code for style:\nx = 1"


@pytest.mark.parametrize(
    ("protocol", "announce", "expected_version"),
    [("auto", "listen", "2026-07-28"), ("legacy", "session", "2025-11-25")],
)
async def test_runtime_tool_list_change_over_stdio(
    protocol: str, announce: str, expected_version: str
) -> None:
    """Each protocol version's own way of announcing: the listen stream, or the notification."""
    options = McpManagerOptions(protocol=protocol)  # type: ignore[arg-type]
    async with McpManager(stdio_entry("fx"), options) as manager:
        status = await manager.wait_ready(30)
        assert status.protocol_version == expected_version
        before = manager.tools_version
        await manager.call_tool("add_tool", {"tool": "late.tool", "announce": announce})
        await manager.wait_tools_changed(before, timeout_s=10)
        late = next(t for t in manager.tools if t.name == "late.tool")
        assert late.qualified == "mcp__fx__late_tool"
        assert manager.status.tool_count == BASE_TOOLS + 1
        result = await manager.call_tool("late.tool", {"x": 7})
        assert result.text() == "late.tool:7"


@pytest.mark.parametrize(("protocol", "announce"), [("auto", "listen"), ("legacy", "session")])
async def test_http_headers_from_environment_and_tool_list_change(
    protocol: str, announce: str
) -> None:
    async with running_http_fixture() as fx:
        entry = McpServerEntry("remote", url=fx.url, headers={"X-Token": "Bearer ${FIXTURE_TOKEN}"})
        options = McpManagerOptions(protocol=protocol, environ={"FIXTURE_TOKEN": "t0k"})  # type: ignore[arg-type]
        async with McpManager(entry, options) as manager:
            status = await manager.wait_ready(30)
            assert (status.state, status.transport) == ("ready", "http"), status.reason
            header = await manager.call_tool("http_header", {"header": "x-token"})
            assert header.text() == "Bearer t0k"
            before = manager.tools_version
            await manager.call_tool("add_tool", {"tool": "dyn", "announce": announce})
            await manager.wait_tools_changed(before, timeout_s=10)
            assert "mcp__remote__dyn" in {t.qualified for t in manager.tools}
            (content,) = await manager.read_resource("fixture://greeting")
            assert content.text == "hello from the fixture"


async def test_killed_stdio_server_reconnects_once_and_the_call_succeeds(
    stdio_manager: McpManager,
) -> None:
    await stdio_manager.wait_ready(30)
    first = await _pid(stdio_manager)
    tools_before = stdio_manager.tools
    os.kill(first, signal.SIGKILL)
    await until_disconnected(stdio_manager)
    second = await _pid(stdio_manager)  # the next call reconnects
    assert second != first
    assert stdio_manager.status.state == "ready"
    assert stdio_manager.tools == tools_before  # the tools stayed listed
    for _ in range(100):
        if process_gone(first):
            break
        await asyncio.sleep(0.05)
    assert process_gone(first), "the killed server was not reaped"


async def test_killed_server_made_unstartable_gives_a_clear_error(tmp_path: Path) -> None:
    switch = tmp_path / "refuse"
    async with McpManager(stdio_entry("fx", "--fail-start-if-exists", str(switch))) as manager:
        assert (await manager.wait_ready(30)).state == "ready"
        pid = await _pid(manager)
        switch.touch()
        os.kill(pid, signal.SIGKILL)
        await until_disconnected(manager)
        with pytest.raises(McpConnectionError) as info:
            await manager.call_tool("echo", {"text": "x"})
        message = str(info.value)
        assert "MCP server 'fx' could not be reconnected" in message
        assert "exited during start-up" in message
        assert "refusing to start" in message
        assert manager.status.state == "failed"
        assert len(manager.tools) == BASE_TOOLS  # still listed for when it comes back
        switch.unlink()
        assert (await manager.call_tool("echo", {"text": "back"})).text() == "back"


async def test_a_read_that_crashes_the_server_every_time_gives_a_clear_error(
    stdio_manager: McpManager,
) -> None:
    """A read has no side effect, so one cut in flight is sent once more, then given up."""
    await stdio_manager.wait_ready(30)
    with pytest.raises(McpConnectionError) as info:
        await stdio_manager.read_resource("fixture://crash")
    assert info.value.server == "fix.ture"
    assert "dropped the connection again after a reconnect" in str(info.value)
    assert stdio_manager.status.state == "disconnected"
    assert len(stdio_manager.tools) == BASE_TOOLS - 1  # still listed
    assert (await stdio_manager.call_tool("echo", {"text": "back"})).text() == "back"


async def test_concurrent_calls_after_a_kill_share_one_reconnect(
    stdio_manager: McpManager,
) -> None:
    await stdio_manager.wait_ready(30)
    first = await _pid(stdio_manager)
    os.kill(first, signal.SIGKILL)
    await until_disconnected(stdio_manager)
    pids = await asyncio.gather(*(_pid(stdio_manager) for _ in range(5)))
    assert len(set(pids)) == 1
    assert pids[0] != first
    assert len(fixture_children()) == 1


async def test_dropped_http_connection_reconnects_once_the_server_is_back() -> None:
    async with running_http_fixture() as fx:
        manager = McpManager(McpServerEntry("remote", url=fx.url))
        manager.start()
        try:
            assert (await manager.wait_ready(30)).state == "ready"
            first = await _pid(manager)
            os.kill(fx.pid, signal.SIGKILL)
            port = fx.port
        except BaseException:
            await manager.aclose()
            raise
    async with running_http_fixture(port=port), manager:
        assert await _pid(manager) not in (first, 0)  # the next call reconnected
        assert manager.status.state == "ready"


async def test_killed_http_server_that_stays_down_gives_a_clear_error() -> None:
    async with running_http_fixture() as fx:
        entry = McpServerEntry("remote", url=fx.url)
        async with McpManager(entry) as manager:
            assert (await manager.wait_ready(30)).state == "ready"
            os.kill(fx.pid, signal.SIGKILL)
            await until_disconnected(manager)  # its event stream dropped
            with pytest.raises(McpConnectionError, match="'remote' could not be reconnected"):
                await manager.call_tool("echo", {"text": "x"})
            assert manager.status.state == "failed"
            assert "could not connect" in (manager.status.reason or "")


async def test_unstartable_server_fails_with_its_reason() -> None:
    async with McpManager(stdio_entry("broken", "--fail-start")) as manager:
        status = await manager.wait_ready(30)
        assert status.state == "failed"
        assert "exited during start-up" in (status.reason or "")
        assert "refusing to start" in (status.reason or "")  # its last stderr line
        with pytest.raises(McpConnectionError, match="'broken' could not be started") as info:
            await manager.call_tool("echo", {"text": "x"})
        assert "[mcp.servers.broken]" in (info.value.hint or "")


async def test_missing_program_and_missing_variable_fail_without_secrets() -> None:
    entry = McpServerEntry("nope", command="/nonexistent/zengine-mcp-server")
    async with McpManager(entry) as manager:
        status = await manager.wait_ready(10)
        assert status.state == "failed"
        assert "not found" in (status.reason or "")
    entry = McpServerEntry("gh", url="http://127.0.0.1:9/mcp", headers={"A": "${NOT_SET_X}"})
    async with McpManager(entry, McpManagerOptions(environ={"OTHER": "secret"})) as manager:
        status = await manager.wait_ready(10)
        assert status.state == "failed"
        assert "NOT_SET_X" in (status.reason or "")
        assert "secret" not in (status.reason or "")


async def test_aclose_is_idempotent_and_reaps_the_process() -> None:
    manager = McpManager(stdio_entry("fx"))
    manager.start()
    await manager.wait_ready(30)
    pid = await _pid(manager)
    await manager.aclose()
    await manager.aclose()
    assert manager.status.state == "stopped"
    assert process_gone(pid)
    with pytest.raises(McpConnectionError, match="closed"):
        await manager.call_tool("echo", {"text": "x"})


async def test_aclose_while_starting_leaves_no_process() -> None:
    manager = McpManager(stdio_entry("fx"))
    manager.start()
    for _ in range(200):  # until the child exists, still mid-handshake
        if fixture_children():
            break
        await asyncio.sleep(0.01)
    before = manager.status.state  # a local: mypy keeps no narrowing of status past aclose()
    assert before == "starting"
    await manager.aclose()
    assert manager.status.state == "stopped"
    assert fixture_children() == []


async def test_stdio_cwd_is_relative_to_the_root_and_env_values_expand(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    base = stdio_entry("fx")
    entry = McpServerEntry(
        "fx", command=base.command, args=base.args, cwd="sub", env={"FIXTURE_VAR": "v=${SRC_VAR}"}
    )
    options = McpManagerOptions(root=tmp_path, environ={"SRC_VAR": "from-env"})
    async with McpManager(entry, options) as manager:
        assert (await manager.wait_ready(30)).state == "ready"
        where = (await manager.call_tool("where")).structured
        assert where == {"cwd": str(tmp_path / "sub"), "fixture_var": "v=from-env"}


async def test_a_slow_answer_times_out_and_the_connection_stays_usable() -> None:
    options = McpManagerOptions(request_timeout_s=0.3)
    async with McpManager(stdio_entry("fx"), options) as manager:
        await manager.wait_ready(30)
        with pytest.raises(
            McpRequestError, match=r"'fx' did not answer tool 'sleep' within 0\.3 s"
        ):
            await manager.call_tool("sleep", {"seconds": 5})
        assert manager.status.state == "ready"
        assert (await manager.call_tool("echo", {"text": "still here"})).text() == "still here"


async def test_a_failing_change_listener_does_not_take_the_server_down() -> None:
    calls: list[str] = []

    def listener(manager: McpManager) -> None:
        calls.append(manager.status.state)
        raise RuntimeError("listener bug")

    async with McpManager(stdio_entry("fx"), on_change=listener) as manager:
        assert (await manager.wait_ready(30)).state == "ready"
        assert (await manager.call_tool("echo", {"text": "ok"})).text() == "ok"
    assert "ready" in calls
