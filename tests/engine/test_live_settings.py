"""Settings changes reach an open chat (issue 21.5, acceptance 4): real fixture MCP servers over
stdio, the local provider server, and the request bodies it received.

Each file change is noticed at the next turn start: MCP servers are reconciled (a new one
starts and its tools are in that turn's request, a changed one restarts alone, a removed one
stops), trust and rules re-apply, a broken file keeps its last good content.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import TYPE_CHECKING, Any

import pytest

from zengine_jupyter.config import TrustStore
from zengine_jupyter.engine import Session, SessionOptions
from zengine_jupyter.engine.lsp import LspExtension
from zengine_jupyter.protocol import Notice, TrustRequired
from zengine_jupyter.testing import ProviderServer, RecordingApprovals, Reply, ScriptedToolCall
from zengine_jupyter.testing._procs import process_gone
from zengine_jupyter.testing.lsp_server import fixture_server_argv
from zengine_jupyter.testing.mcp_chat import mcp_extension, settings_text, stdio_server
from zengine_jupyter.testing.mcp_server import fixture_children

if TYPE_CHECKING:
    from pathlib import Path

    from zengine_jupyter.engine import Subscription
    from zengine_jupyter.engine.mcp import McpHub

pytestmark = pytest.mark.slow

PATIENT = "\n[mcp]\nstartup_wait = 60\n"
"""A loaded test machine may take seconds to start a server: wait for it, not for the default."""


def mcp_servers_in(request: dict[str, Any]) -> dict[str, set[str]]:
    """Server name -> its tool names, from a request body's tools."""
    out: dict[str, set[str]] = {}
    for tool in request["tools"]:
        parts = tool["name"].split("__")
        if parts[0] == "mcp":
            out.setdefault(parts[1], set()).add(parts[2])
    return out


async def server_pid(hub: McpHub, server: str) -> int:
    return int((await hub.call_tool(f"mcp__{server}__pid")).text())


async def notices(events: Subscription) -> list[str]:
    return [e.text for e in [ev async for ev in events] if isinstance(e, Notice)]


async def test_servers_follow_the_user_settings_while_the_chat_is_open(
    project: Path, zengine_home: Path
) -> None:
    user = zengine_home / "settings.toml"
    async with ProviderServer() as model:
        servers = {"a": stdio_server(), "b": stdio_server()}

        def write() -> None:
            user.write_text(settings_text(model.base_url, servers) + PATIENT)

        async def turn(text: str) -> dict[str, set[str]]:
            model.add(Reply(text=(text,)))
            outcome = await session.submit(text)
            assert outcome.status == "completed", outcome.reason
            return mcp_servers_in(model.requests[-1].json)

        write()
        session = await Session.open(SessionOptions(project=project))
        events = session.subscribe()
        hub = mcp_extension(session).hub
        await mcp_extension(session).wait_ready(60)
        assert set(await turn("first")) == {"a", "b"}
        a_pid, b_pid = await server_pid(hub, "a"), await server_pid(hub, "b")

        servers["c"] = stdio_server()  # added while the chat is open
        write()
        assert set(await turn("second")) == {"a", "b", "c"}  # in this very turn's request
        assert (await server_pid(hub, "a"), await server_pid(hub, "b")) == (a_pid, b_pid)
        c_pid = await server_pid(hub, "c")

        servers["b"] = stdio_server(disabled_tools=["add"])  # one entry edited
        write()
        tools = await turn("third")
        assert "add" not in tools["b"]
        assert "add" in tools["a"]
        assert await server_pid(hub, "b") != b_pid  # restarted alone
        assert (await server_pid(hub, "a"), await server_pid(hub, "c")) == (a_pid, c_pid)

        del servers["a"]  # removed
        write()
        assert set(await turn("fourth")) == {"b", "c"}
        assert process_gone(a_pid)
        assert await server_pid(hub, "c") == c_pid

        user.touch()  # no change of content: nothing reloads
        await turn("fifth")
        await session.aclose()
    texts = await notices(events)
    reloads = [t for t in texts if t.startswith("settings reloaded")]
    assert reloads == [
        "settings reloaded: mcp server 'c' added",
        "settings reloaded: mcp server 'b' restarted",
        "settings reloaded: mcp server 'a' stopped",
    ]
    assert "waiting for MCP servers (c)" in texts
    assert fixture_children() == []


async def test_a_broken_settings_file_keeps_the_last_good_settings(
    project: Path, zengine_home: Path
) -> None:
    user = zengine_home / "settings.toml"
    async with ProviderServer() as model:
        good = settings_text(model.base_url, {"a": stdio_server()}) + PATIENT
        user.write_text(good)
        session = await Session.open(SessionOptions(project=project))
        events = session.subscribe()
        hub = mcp_extension(session).hub
        await mcp_extension(session).wait_ready(60)
        a_pid = await server_pid(hub, "a")

        user.write_text(good + "\n[mcp.servers.a.env]\nX = 1\n")  # a wrong type
        model.add(Reply(text=("still here",)))
        outcome = await session.submit("go on")  # the provider of the broken file still answers
        assert outcome.text == "still here"
        assert "a" in mcp_servers_in(model.requests[-1].json)
        assert await server_pid(hub, "a") == a_pid  # nothing restarted

        user.write_text(good.replace("[mcp]", "[mcp"))  # not TOML
        model.add(Reply(text=("and here",)))
        assert (await session.submit("and now")).text == "and here"
        await session.aclose()
    texts = await notices(events)
    kept = [t for t in texts if t.endswith("(kept the last good settings of this file)")]
    assert len(kept) == 2, texts
    assert kept[0].startswith(f"{user}:")
    assert "mcp.servers.a.env.X" in kept[0]
    assert "not valid TOML" in kept[1]
    assert not any(t.startswith("settings reloaded") for t in texts)
    assert fixture_children() == []


async def test_trusting_the_folder_applies_its_servers_rules_and_hooks_at_the_next_turn(
    project: Path, zengine_home: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "hook-ran"
    hook = [sys.executable, "-c", f"open({str(marker)!r}, 'a').write('x')"]
    shared = project / ".z-engine" / "settings.toml"
    shared.parent.mkdir()
    shared.write_text(
        settings_text(None, {"proj": stdio_server()}, allow=["mcp__proj"])
        + f"\n[[hooks.user_prompt_submit]]\ncommand = {json.dumps(hook)}\n"
    )
    async with ProviderServer() as model:
        (zengine_home / "settings.toml").write_text(settings_text(model.base_url) + PATIENT)
        approvals = RecordingApprovals()
        session = await Session.open(SessionOptions(project=project, approvals=approvals))
        events = session.subscribe()
        model.add(Reply(text=("untrusted",)))
        await session.submit("before")
        assert mcp_servers_in(model.requests[-1].json) == {}
        assert not marker.exists()
        shared.write_text(shared.read_text() + '\n[mcp.servers.more]\ncommand = "x"\n')
        model.add(Reply(text=("still untrusted",)))
        await session.submit("more")  # the banner again, naming the new server

        await asyncio.to_thread(TrustStore().trust, project)  # trust.json changes, nothing else
        model.add(
            Reply(tool_calls=(ScriptedToolCall("mcp__proj__echo", {"text": "hi"}),)),
            Reply(text=("done",)),
        )
        outcome = await session.submit("after")
        assert outcome.status == "completed", outcome.reason
        assert "proj" in mcp_servers_in(model.requests[-2].json)
        assert approvals.asked == []  # the project's allow rule applies now
        assert marker.exists()  # and its hook
        await session.aclose()
    seen = [ev async for ev in events]
    (banner,) = [e for e in seen if isinstance(e, TrustRequired)][-1:]
    assert "mcp.servers.more" in banner.withheld
    texts = [e.text for e in seen if isinstance(e, Notice)]
    assert (
        "settings reloaded: workspace trusted, permission rules re-applied, hooks changed, "
        "mcp server 'proj' started, mcp server 'more' started" in texts
    )
    assert f"trusted {project}: its settings apply now" in texts  # a view clears its banner
    assert fixture_children() == []


def lsp_table(name: str, file_type: str, *options: str) -> str:
    """A ``[lsp.servers.NAME]`` table running the fixture language server."""
    command, *args = fixture_server_argv(*options)
    return (
        f"[lsp.servers.{name}]\ncommand = {json.dumps(command)}\nargs = {json.dumps(args)}\n"
        f'file_types = ["{file_type}"]\n'
    )


async def test_an_edited_language_server_entry_stops_only_that_server(
    project: Path, zengine_home: Path
) -> None:
    user = zengine_home / "settings.toml"
    (project / "a.fx").write_text("x\n")
    (project / "a.fy").write_text("y\n")
    async with ProviderServer() as model:
        base = settings_text(model.base_url) + lsp_table("x", "fx")
        user.write_text(base + lsp_table("y", "fy"))
        session = await Session.open(SessionOptions(project=project))
        events = session.subscribe()
        lsp = next(e for e in session.extensions if isinstance(e, LspExtension))
        manager = lsp.manager
        x_pid = (await manager.client_for(project / "a.fx")).peer.pid
        y_pid = (await manager.client_for(project / "a.fy")).peer.pid

        user.write_text(base + lsp_table("y", "fy", "--index-s", "0"))
        assert await session.refresh_settings()  # what the kernel's watch calls
        assert lsp.manager is manager
        assert process_gone(y_pid)
        assert (await manager.client_for(project / "a.fx")).peer.pid == x_pid  # kept running
        assert (await manager.client_for(project / "a.fy")).peer.pid != y_pid  # the new entry
        assert not await session.refresh_settings()  # nothing changed since
        await session.aclose()
    texts = await notices(events)
    assert "settings reloaded: language server 'y' changed" in texts
