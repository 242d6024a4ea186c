"""The panel's other requests against a real kernel: reconnecting after a restart, the lists,
slash commands, MCP status, trust, interrupt, and %unload_ext closing everything."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from zengine_jupyter.config import TrustStore
from zengine_jupyter.protocol import (
    ApprovalRequested,
    CommandRequest,
    InterruptRequest,
    ListCommandsRequest,
    ListSessionsRequest,
    McpStatusRequest,
    MessageRecord,
    Notice,
    Snapshot,
    SubmitRequest,
    SubscribeRequest,
    TrustAnswer,
    TrustRequired,
    TurnEnded,
)
from zengine_jupyter.testing import ProviderServer, ScriptedToolCall
from zengine_jupyter.testing import Reply as Scripted
from zengine_jupyter.testing.kernel import KernelHarness, widget_id
from zengine_jupyter.testing.mcp_server import fixture_argv
from zengine_jupyter.testing.panel import PanelClient, event_kinds, events

pytestmark = pytest.mark.e2e

_TASKS = (
    "import asyncio, json\n"
    "print(json.dumps(sorted(t.get_name() for t in asyncio.all_tasks()\n"
    "                        if t.get_name().startswith('zengine'))))"
)


def test_a_restarted_kernel_shows_the_history_and_answers_the_lists(
    kernel: KernelHarness, project: Path, server: ProviderServer, zengine_home: Path
) -> None:
    panel = PanelClient(kernel)
    panel.open()
    server.add(Scripted(text=("Hello from the model.",)))
    first = panel.request(SubmitRequest(id="t1", text="say hello"))
    assert first.ok, first
    ended = panel.until_event("turn_ended")
    sid = events(ended)[0].session_id

    # kernel restart: the panel reconnects, loads the extension and subscribes to its chat
    kernel.manager.restart_kernel(now=True)
    kernel.client.wait_for_ready(timeout=60)
    assert kernel.execute("%load_ext zengine").status == "ok"
    panel = PanelClient(kernel, "panel-after-restart")
    panel.open()
    snapshot, reply = panel.exchange(SubscribeRequest(id="s1", session_id=sid))
    assert reply.ok, reply
    assert isinstance(snapshot, Snapshot)
    assert (snapshot.id, snapshot.session_id, snapshot.running_turn_id) == ("s1", sid, None)
    said = [(r.role, r.text) for r in snapshot.records if isinstance(r, MessageRecord)]
    assert said == [("user", "say hello"), ("assistant", "Hello from the model.")]

    missing = panel.request(SubscribeRequest(id="s2", session_id="20990101-000000-nosuch"))
    assert not missing.ok
    assert "no chat '20990101-000000-nosuch'" in (missing.error or "")
    assert missing.hint

    sessions = panel.request(ListSessionsRequest(id="l1"))
    assert sessions.ok
    assert [m.id for m in sessions.sessions or []] == [sid]
    assert (sessions.sessions or [])[0].project == str(project.resolve())

    commands = panel.request(ListCommandsRequest(id="l2"))
    names = {c.name: c for c in commands.commands or []}
    assert {"cost", "model", "mode", "rewind", "mcp", "checks", "verify"} <= set(names)
    assert names["model"].argument_hint == "[model]"
    assert all(c.description for c in names.values())

    cost = panel.request(CommandRequest(id="c1", name="cost"))
    assert cost.ok, cost
    assert (cost.text or "").startswith("cost so far:")
    assert cost.turn_id is None
    unknown = panel.request(CommandRequest(id="c2", name="dance"))
    assert not unknown.ok
    assert "no command /dance" in (unknown.error or "")

    # no MCP server configured: an empty list, and the SDK stays unimported
    servers = panel.request(McpStatusRequest(id="m1"))
    assert (servers.ok, servers.servers) == (True, [])
    modules = kernel.execute("import sys\nprint('mcp' in sys.modules)")
    assert modules.text.strip() == "False"
    assert len(server.requests) == 1  # the commands and lists never asked the model


@pytest.mark.slow
def test_mcp_status_and_prompt_commands_come_from_the_chat(
    kernel: KernelHarness, project: Path, server: ProviderServer, zengine_home: Path
) -> None:
    argv = fixture_argv()
    settings = zengine_home / "settings.toml"
    settings.write_text(
        settings.read_text()
        + '[mcp.servers.broken]\ncommand = "/nonexistent/mcp-server"\n'
        + f"[mcp.servers.fx]\ncommand = {json.dumps(argv[0])}\nargs = {json.dumps(argv[1:])}\n"
    )
    (project / ".z-engine" / "commands").mkdir(parents=True)
    (project / ".z-engine" / "commands" / "summarise.md").write_text(
        "---\ndescription: Summarise the pipeline\n---\nSummarise $ARGUMENTS\n"
    )
    panel = PanelClient(kernel)
    panel.open()
    # no chat yet: the configured servers, not started; the built-ins and the command files
    before = panel.request(McpStatusRequest(id="m1"))
    assert [(s.name, s.state) for s in before.servers or []] == [
        ("broken", "stopped"),
        ("fx", "stopped"),
    ]
    listed = {c.name: c for c in panel.request(ListCommandsRequest(id="l1")).commands or []}
    assert {"cost", "help", "rewind", "summarise"} <= set(listed)
    assert listed["summarise"].description == "Summarise the pipeline"

    server.add(Scripted(text=("hi",)))
    assert panel.request(SubmitRequest(id="t1", text="hi")).ok

    def startup_notice(m: Any) -> bool:  # not the turn's "waiting for" / "still starting"
        settled = ("MCP servers ready", "MCP servers failed")
        return bool(m.kind == "event" and m.event.kind == "notice" and m.event.topic == "mcp"
                    and m.event.text.startswith(settled))  # fmt: skip

    # the turn waits for the servers (mcp.startup_wait); then the start-up notice and its end
    if not any(startup_notice(m) for m in panel.until_event("turn_ended", timeout=60)):
        panel.read(startup_notice, timeout=60)
    after = {s.name: s for s in panel.request(McpStatusRequest(id="m2")).servers or []}
    assert (after["fx"].state, after["broken"].state) == ("ready", "failed")
    assert after["broken"].reason

    listed = {c.name: c for c in panel.request(ListCommandsRequest(id="l2")).commands or []}
    review = listed["mcp__fx__review"]
    assert (review.description, review.argument_hint) == ("Ask for a code review.",
                                                          "<code> [focus]")  # fmt: skip
    assert listed["summarise"].description == "Summarise the pipeline"

    # an MCP prompt command becomes a turn: the reply carries its id, the model gets the prompt
    server.add(Scripted(text=("Looks fine.",)))
    started = panel.request(CommandRequest(id="c1", name="mcp__fx__review", args="'x = 1'"))
    assert started.ok, started
    assert started.turn_id
    panel.until_event("turn_ended")
    assert "Please review this code:\\nx = 1" in json.dumps(server.requests[-1].json)
    assert kernel.execute("%unload_ext zengine").status == "ok"


def test_trust_from_the_panel_applies_the_project_settings(
    kernel: KernelHarness, project: Path, server: ProviderServer
) -> None:
    (project / ".z-engine").mkdir()
    (project / ".z-engine" / "settings.toml").write_text(
        '[permissions]\nallow = ["Bash(echo:*)"]\n'
    )
    panel = PanelClient(kernel)
    panel.open()
    server.add(Scripted(tool_calls=(ScriptedToolCall("Bash", {"command": "echo one"}),)))
    assert panel.request(SubmitRequest(id="t1", text="echo one")).ok
    asked = panel.until_event("approval_requested")
    (banner,) = [e for e in events(asked) if isinstance(e, TrustRequired)]
    assert banner.folder == str(project.resolve())
    assert "permissions.allow" in banner.withheld

    # interrupt over the comm: the waiting turn ends as interrupted
    assert panel.request(InterruptRequest(id="i1")).ok
    (ended,) = [e for e in events(panel.until_event("turn_ended")) if isinstance(e, TurnEnded)]
    assert ended.status == "interrupted"

    other = panel.request(TrustAnswer(id="x1", folder=str(project.parent), trust=True))
    assert not other.ok
    assert "is not this kernel's project" in (other.error or "")
    assert panel.request(TrustAnswer(id="x2", folder=banner.folder, trust=False)).ok
    assert not TrustStore().is_trusted(project)  # "Not now" stores nothing
    assert panel.request(TrustAnswer(id="x3", folder=banner.folder, trust=True)).ok
    assert TrustStore().is_trusted(project)
    trusted = panel.read(lambda m: m.kind == "event" and getattr(m.event, "topic", "") == "trust")
    notice = events(trusted)[-1]
    assert isinstance(notice, Notice)
    assert notice.text == f"trusted {banner.folder}: its settings apply now"

    # the project's allow rule now applies: the same command runs without asking
    server.add(
        Scripted(tool_calls=(ScriptedToolCall("Bash", {"command": "echo two"}),)),
        Scripted(text=("ran",)),
    )
    assert panel.request(SubmitRequest(id="t2", text="echo two")).ok
    kinds = event_kinds(panel.until_event("turn_ended"))
    assert "approval_requested" not in kinds
    assert "tool_call_finished" in kinds
    # a new subscriber no longer gets the banner
    again = panel.exchange(SubscribeRequest(id="s2"))
    assert again[-1].ok
    # (what the new subscription forwards comes before the answer to a later request)
    late = panel.exchange(ListSessionsRequest(id="l1"))
    assert late[-1].ok
    assert not [e for e in events(late) if isinstance(e, TrustRequired)]


def test_unload_closes_the_comms_and_leaves_no_task(
    kernel: KernelHarness, server: ProviderServer
) -> None:
    panel = PanelClient(kernel)
    panel.open()
    idle = PanelClient(kernel, "panel-idle")
    idle.open()
    assert panel.request(SubscribeRequest(id="s1")).ok
    server.add(Scripted(tool_calls=(ScriptedToolCall("Bash", {"command": "echo hi"}),)))
    cell = kernel.execute("%%agent\nsay hi\n")
    widget_id(cell)
    asked = panel.until_event("approval_requested")
    (question,) = [e for e in events(asked) if isinstance(e, ApprovalRequested)]
    # a panel that subscribes now sees the question waiting and the turn in flight
    snapshot, reply = idle.exchange(SubscribeRequest(id="s2"))
    assert reply.ok
    assert isinstance(snapshot, Snapshot)
    assert snapshot.pending == [question.request]
    assert snapshot.running_turn_id == question.turn_id

    unloaded = kernel.execute("%unload_ext zengine")
    assert unloaded.status == "ok", unloaded.text
    panel.wait_closed()
    idle.wait_closed()
    assert panel.closed_by_kernel
    assert idle.closed_by_kernel
    left = kernel.execute(_TASKS)
    assert json.loads(left.text.strip().splitlines()[-1]) == []
