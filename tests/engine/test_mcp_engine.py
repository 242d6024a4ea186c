"""MCP through the engine, with the local provider server scripting the model (issue 10).

Real servers only: the fixture server over stdio and over streamable HTTP on 127.0.0.1, and
``@modelcontextprotocol/server-everything`` from npm.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

import pytest

from zengine_jupyter.engine import Session, SessionOptions
from zengine_jupyter.protocol import Notice
from zengine_jupyter.testing import ProviderServer, Reply, ScriptedToolCall
from zengine_jupyter.testing.mcp_chat import (
    RecordingApprovals,
    everything_server,
    mcp_extension,
    settings_text,
    stdio_server,
    tool_results,
)
from zengine_jupyter.testing.mcp_server import (
    BASE_TOOLS,
    fixture_children,
    running_http_fixture,
)

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.slow


def call(name: str, **arguments: Any) -> Reply:
    return Reply(tool_calls=(ScriptedToolCall(name, arguments),))


def tool_names(request: dict[str, Any]) -> list[str]:
    return [t["name"] for t in request["tools"]]


async def open_chat(project: Path, **options: Any) -> Session:
    session = await Session.open(SessionOptions(project=project, **options))
    statuses = await mcp_extension(session).wait_ready(60)
    assert all(s.state != "starting" for s in statuses)
    return session


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    return root


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_tools_resources_and_prompts_of_the_fixture_server(
    transport: str, project: Path, zengine_home: Path
) -> None:
    async with contextlib.AsyncExitStack() as stack:
        model = await stack.enter_async_context(ProviderServer())
        if transport == "http":
            http = await stack.enter_async_context(running_http_fixture())
            table: dict[str, Any] = {"url": http.url}
        else:
            table = stdio_server()
        (zengine_home / "settings.toml").write_text(settings_text(model.base_url, {"fx": table}))
        model.add(
            call("mcp__fx__echo", text="hi there"),
            Reply(tool_calls=(ScriptedToolCall("ListMcpResources", {}),
                              ScriptedToolCall("ReadMcpResource",
                                               {"server": "fx", "uri": "fixture://greeting"}))),
            Reply(text=("done",)),
            Reply(text=("reviewed",)),
        )  # fmt: skip
        approvals = RecordingApprovals()
        session = await Session.open(SessionOptions(project=project, approvals=approvals))
        events = session.subscribe()
        # Session.open did not wait for the server: it is still starting
        status = await session.submit("/mcp")
        assert "fx" in status.text
        assert "starting" in status.text
        statuses = await mcp_extension(session).wait_ready(60)
        assert [(s.name, s.state) for s in statuses] == [("fx", "ready")]
        assert "mcp__fx__review" in session.commands

        outcome = await session.submit("use the server")
        assert outcome.status == "completed", outcome.reason
        first = model.requests[0].json
        assert {"mcp__fx__echo", "ListMcpResources", "ReadMcpResource"} <= set(tool_names(first))
        assert "LoadMcpTools" not in tool_names(first)  # BASE_TOOLS tools: nothing deferred
        echo = next(t for t in first["tools"] if t["name"] == "mcp__fx__echo")
        assert echo["input_schema"]["properties"]["text"]["type"] == "string"
        assert tool_results(model.requests[1].json) == [("hi there", False)]
        listing, read = tool_results(model.requests[2].json)
        assert "fx  fixture://greeting  greeting" in listing[0]
        assert read == ("hello from the fixture", False)
        # MCP tools ask by default; the resource tools only read
        assert [r.tool for r in approvals.asked] == ["mcp__fx__echo"]

        reviewed = await session.submit("/mcp__fx__review 'x = 1' focus=naming")
        assert reviewed.text == "reviewed"
        prompt = model.requests[3].json["messages"][-1]["content"][-1]["text"]
        assert "x = 1" in prompt
        assert "naming" in prompt
        table_text = (await session.submit("/mcp")).text
        assert "fx" in table_text
        assert "ready" in table_text
        assert transport in table_text
        missing = await session.submit("/mcp__fx__review")
        assert "needs code" in missing.text
        assert len(model.requests) == 4
        await session.aclose()
    notices = [e.text for e in [ev async for ev in events] if isinstance(e, Notice)]
    ready = f"MCP servers ready: fx ({BASE_TOOLS} tools)"
    assert any(n.startswith(ready) for n in notices), notices
    assert fixture_children() == []


async def test_server_everything_through_the_engine(project: Path, zengine_home: Path) -> None:
    table = everything_server(disabled_tools=["get-env"])
    async with ProviderServer() as model:
        (zengine_home / "settings.toml").write_text(
            settings_text(model.base_url, {"everything": table}, allow=["mcp__everything"])
        )
        model.add(
            Reply(tool_calls=(ScriptedToolCall("mcp__everything__get-sum", {"a": 2, "b": 40}),
                              ScriptedToolCall("ListMcpResources", {"server": "everything"}))),
            Reply(text=("42",)),
        )  # fmt: skip
        approvals = RecordingApprovals()
        session = await open_chat(project, approvals=approvals)
        outcome = await session.submit("add")
        assert outcome.status == "completed", outcome.reason
        names = tool_names(model.requests[0].json)
        assert "mcp__everything__echo" in names
        assert "mcp__everything__get-env" not in names
        (total, ok), (listing, _) = tool_results(model.requests[1].json)
        assert "42" in total
        assert not ok
        uri = listing.splitlines()[0].split("  ")[1]
        assert approvals.asked == []  # mcp__everything allows every tool of the server

        model.add(call("ReadMcpResource", server="everything", uri=uri), Reply(text=("read",)))
        await session.submit("read it")
        (content, failed), = tool_results(model.requests[3].json)  # fmt: skip
        assert content
        assert not failed

        model.add(Reply(text=("weather",)))
        await session.submit("/mcp__everything__args-prompt Lyon")
        prompt = model.requests[-1].json["messages"][-1]["content"][-1]["text"]
        assert "Lyon" in prompt
        await session.aclose()


async def test_the_gate_asks_by_default_and_rules_allow(project: Path, zengine_home: Path) -> None:
    async with ProviderServer() as model:
        servers = {"fx": stdio_server(), "gx": stdio_server()}
        (zengine_home / "settings.toml").write_text(
            settings_text(model.base_url, servers, allow=["mcp__fx__echo", "mcp__gx"])
        )
        model.add(
            Reply(tool_calls=(
                ScriptedToolCall("mcp__fx__echo", {"text": "a"}),  # its own rule
                ScriptedToolCall("mcp__fx__add", {"a": 1, "b": 2}),  # asks: denied
                ScriptedToolCall("mcp__gx__add", {"a": 1, "b": 2}),  # the server's rule
            )),
            Reply(text=("ok",)),
        )  # fmt: skip
        approvals = RecordingApprovals(deny=["mcp__fx__add"])
        session = await open_chat(project, approvals=approvals)
        await session.submit("go")

        # a tool the server adds while running joins the chat's tools (and the next request)
        model.add(call("mcp__gx__add_tool", tool="fresh", announce="listen"), Reply(text=("+",)))
        await session.submit("grow")
        for _ in range(500):
            if "mcp__gx__fresh" in session.tools:
                break
            await asyncio.sleep(0.02)
        model.add(call("mcp__gx__fresh", x=4), Reply(text=("fresh",)))
        await session.submit("use it")
        assert "mcp__gx__fresh" in tool_names(model.requests[-2].json)
        assert tool_results(model.requests[-1].json) == [("fresh:4", False)]
        await session.aclose()
    assert [(r.tool, r.suggested_rule) for r in approvals.asked] == [
        ("mcp__fx__add", "mcp__fx__add")
    ]
    echo, add_fx, add_gx = tool_results(model.requests[1].json)
    assert echo == ("a", False)
    assert add_fx[1]
    assert "denied" in add_fx[0]
    assert add_gx == ("3", False)


async def test_sixty_tools_are_deferred_until_loaded(project: Path, zengine_home: Path) -> None:
    async with ProviderServer() as model:
        (zengine_home / "settings.toml").write_text(
            settings_text(model.base_url, {"big": stdio_server("--tools", str(60 - BASE_TOOLS))},
                          allow=["mcp__big"])
        )  # fmt: skip
        model.add(
            Reply(tool_calls=(ScriptedToolCall("LoadMcpTools", {"names": ["mcp__big__tool_007"]}),
                              ScriptedToolCall("mcp__big__tool_007", {"x": 1}))),
            call("mcp__big__tool_007", x=3),
            Reply(text=("done",)),
        )  # fmt: skip
        session = await open_chat(project)
        await session.submit("use tool 7")
        await session.aclose()

        first, second = model.requests[0].json, model.requests[1].json
        assert "LoadMcpTools" in tool_names(first)
        assert not [n for n in tool_names(first) if n.startswith("mcp__")]
        system = str(first["system"])
        assert "- mcp__big__tool_007: Numbered fixture tool 7." in system
        assert system.count("- mcp__big__") == 60
        loaded, too_early = tool_results(second)
        assert loaded == ("Loaded: mcp__big__tool_007. You can call them from your next "
                          "response on.", False)  # fmt: skip
        assert too_early[1]
        assert "not loaded yet" in too_early[0]
        schema = next(t for t in second["tools"] if t["name"] == "mcp__big__tool_007")
        assert schema["input_schema"]["properties"]["x"]["type"] == "integer"
        assert [n for n in tool_names(second) if n.startswith("mcp__")] == ["mcp__big__tool_007"]
        assert tool_results(model.requests[2].json) == [("tool_007:3", False)]

        # resuming replays LoadMcpTools from the log: the tool is loaded from the first request
        model.add(Reply(text=("still here",)))
        again = await open_chat(project, session_id=session.id)
        await again.submit("and now?")
        await again.aclose()
        names = tool_names(model.requests[-1].json)
        assert [n for n in names if n.startswith("mcp__")] == ["mcp__big__tool_007"]
        assert "mcp__big__tool_007: Numbered fixture tool 7. (loaded)" in str(
            model.requests[-1].json["system"]
        )


async def test_a_killed_server_reconnects_once_and_an_unstartable_one_fails_clearly(
    project: Path, zengine_home: Path, tmp_path: Path
) -> None:
    from zengine_jupyter.testing.mcp_chat import kill_and_wait, until_disconnected

    block = tmp_path / "refuse"
    servers = {
        "fx": stdio_server("--fail-start-if-exists", str(block)),
        "broken": stdio_server("--fail-start"),
    }
    async with ProviderServer() as model:
        (zengine_home / "settings.toml").write_text(
            settings_text(model.base_url, servers, allow=["mcp__fx"])
        )
        session = await Session.open(SessionOptions(project=project))
        events = session.subscribe()
        await mcp_extension(session).wait_ready(60)

        async def pid_turn() -> tuple[str, bool]:
            model.add(call("mcp__fx__pid"), Reply(text=("ok",)))
            outcome = await session.submit("pid?")
            assert outcome.status == "completed", outcome.reason
            (result,) = tool_results(model.requests[-1].json)
            return result

        (first, failed) = await pid_turn()
        assert not failed
        manager = mcp_extension(session).hub.manager("fx")
        kill_and_wait(int(first))
        await until_disconnected(manager)  # a call racing the kill itself is another test's
        (second, failed) = await pid_turn()  # the call reconnects once and succeeds
        assert not failed
        assert int(second) != int(first)

        block.touch()  # from now on the server cannot start
        kill_and_wait(int(second))
        await until_disconnected(manager)
        (error, failed) = await pid_turn()
        assert failed
        assert "mcp__fx__pid failed: MCP server 'fx' could not be reconnected" in error
        assert "refusing to start" in error  # the server's own last words
        model.add(Reply(text=("the chat goes on",)))
        assert (await session.submit("still there?")).text == "the chat goes on"
        await session.aclose()
    texts = [e.text for e in [ev async for ev in events] if isinstance(e, Notice)]
    startup = next(t for t in texts if t.startswith("MCP servers"))
    assert "ready: fx" in startup
    assert "failed: broken: the program exited" in startup
    assert fixture_children() == []


async def test_reload_and_trust_start_restart_and_stop_only_what_changed(
    project: Path, zengine_home: Path
) -> None:
    user = zengine_home / "settings.toml"
    (project / ".z-engine").mkdir()
    (project / ".z-engine" / "settings.toml").write_text(
        settings_text(None, {"proj": stdio_server()})
    )
    async with ProviderServer() as model:
        servers = {"a": stdio_server(), "b": stdio_server()}
        user.write_text(settings_text(model.base_url, servers))
        session = await open_chat(project)
        hub = mcp_extension(session).hub
        table = (await session.submit("/mcp")).text
        assert "proj" in table
        assert "withheld" in table
        assert "project" in table

        async def pid(server: str) -> int:
            result = await hub.call_tool(f"mcp__{server}__pid")
            return int(result.text())

        a_pid, b_pid = await pid("a"), await pid("b")
        servers["a"] = stdio_server(disabled_tools=["add"])
        user.write_text(settings_text(model.base_url, servers))
        await session.submit("/trust")  # reloads the settings: a changed, proj now allowed
        await mcp_extension(session).wait_ready(60)
        assert await pid("b") == b_pid
        assert await pid("a") != a_pid
        assert "mcp__a__add" not in session.tools
        assert "mcp__b__add" in session.tools
        assert "mcp__proj__echo" in session.tools
        states = {s.name: (s.state, s.origin) for s in hub.statuses()}
        assert states["proj"] == ("ready", "project")
        assert states["a"] == ("ready", "user")
        await session.aclose()
    assert fixture_children() == []


async def test_a_chat_without_servers_has_no_mcp_tools(project: Path, zengine_home: Path) -> None:
    async with ProviderServer() as model:
        (zengine_home / "settings.toml").write_text(settings_text(model.base_url))
        model.add(Reply(text=("hi",)))
        session = await open_chat(project)
        await session.submit("hello")
        mcp = (await session.submit("/mcp")).text
        await session.aclose()
    names = tool_names(model.requests[0].json)
    assert not {"LoadMcpTools", "ListMcpResources", "ReadMcpResource"} & set(names)
    assert "No MCP servers configured" in mcp
