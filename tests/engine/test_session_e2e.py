"""A whole turn against the local provider server: read, an approved edit, a command; the log
replays to the same transcript, and resuming the chat continues it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from zengine_jupyter.config import TrustStore
from zengine_jupyter.engine import Session, SessionOptions
from zengine_jupyter.protocol import (
    Notice,
    ToolCallFinished,
    TurnEnded,
)
from zengine_jupyter.store import SessionStore
from zengine_jupyter.testing import (
    ProviderServer,
    RecordingApprovals,
    Reply,
    ScriptedToolCall,
    configured_provider,
)


def script(server: ProviderServer) -> None:
    server.add(
        Reply(text=("Let me look.",),
              tool_calls=(ScriptedToolCall("Read", {"path": "pipeline.py"}),)),
        Reply(tool_calls=(ScriptedToolCall(
            "Edit", {"path": "pipeline.py", "old_string": "RATE = 1", "new_string": "RATE = 2"}),)),
        Reply(tool_calls=(ScriptedToolCall("Bash", {"command": "python3 pipeline.py"}),)),
        Reply(text=("Done: RATE is 2 now.",)),
    )  # fmt: skip


async def test_a_turn_reads_edits_with_approval_and_runs_a_command(
    project: Path, zengine_home: Path
) -> None:
    async with configured_provider(zengine_home) as server:
        script(server)
        approvals = RecordingApprovals({"Edit": "allow_once", "Bash": "allow_once"})
        session = await Session.open(SessionOptions(project=project, approvals=approvals))
        events = session.subscribe()
        outcome = await session.submit("Set RATE to 2 and run the pipeline")
        await session.aclose()

        assert outcome.status == "completed", outcome.reason
        assert outcome.text == "Done: RATE is 2 now."
        assert (project / "pipeline.py").read_text() == "RATE = 2\nprint('rate', RATE)\n"
        assert [r.tool for r in approvals.asked] == ["Edit", "Bash"]
        assert approvals.asked[1].command == "python3 pipeline.py"
        assert len(server.requests) == 4
        assert [r.rejected for r in server.requests] == [None] * 4
        last = server.requests[-1].json["messages"]
        bash_result = last[-1]["content"][0]
        assert bash_result["type"] == "tool_result"
        assert "rate 2" in str(bash_result["content"])

        seen = [event async for event in events]  # the bus closed with the session
        finished = [e for e in seen if isinstance(e, ToolCallFinished)]
        assert len(finished) == 3
        assert finished[1].diff is not None
        assert "+RATE = 2" in finished[1].diff
        assert isinstance(seen[-1], TurnEnded)
        assert seen[-1].status == "completed"

        # the log replays to the same transcript
        snapshot = SessionStore().read(session.id)
        kinds = [r.kind for r in snapshot.state.transcript]
        assert kinds.count("message") == 5  # user + 4 assistant
        assert kinds.count("tool_result") == 3
        assert kinds.count("approval") == 3  # Read by mode, Edit and Bash by the user
        assert kinds.count("checkpoint") == 1
        assert snapshot.state.last_turn is not None
        assert snapshot.state.last_turn.status == "completed"

        # resuming continues the same chat: the next request carries the whole history
        server.add(Reply(text=("It is 2.",)))
        again = await Session.open(SessionOptions(project=project, session_id=session.id))
        second = await again.submit("What is RATE now?")
        await again.aclose()
        assert second.status == "completed"
        history = server.requests[-1].json["messages"]
        assert history[0]["content"][0]["text"] == "Set RATE to 2 and run the pipeline"
        assert history[-1]["content"][-1]["text"] == "What is RATE now?"
        assert server.requests[-1].rejected is None


async def test_denied_edit_leaves_the_file_and_tells_the_model(
    project: Path, zengine_home: Path
) -> None:
    async with configured_provider(zengine_home) as server:
        server.add(
            Reply(tool_calls=(ScriptedToolCall("Read", {"path": "pipeline.py"}),)),
            Reply(tool_calls=(ScriptedToolCall(
                "Write", {"path": "pipeline.py", "content": "gone"}),)),
            Reply(text=("OK, I will not.",)),
        )  # fmt: skip
        session = await Session.open(SessionOptions(project=project))  # nobody to ask: deny
        outcome = await session.submit("overwrite it")
        await session.aclose()
    assert outcome.status == "completed"
    assert (project / "pipeline.py").read_text().startswith("RATE = 1")
    denied = server.requests[2].json["messages"][-1]["content"][0]
    assert denied["is_error"] is True
    assert "denied" in str(denied["content"])


async def test_interrupt_closes_the_turn_and_answers_the_open_call(
    project: Path, zengine_home: Path
) -> None:
    async with configured_provider(zengine_home) as server:
        server.add(
            Reply(tool_calls=(ScriptedToolCall("Bash", {"command": "sleep 30"}),)),
            Reply(text=("next turn",)),
        )
        approvals = RecordingApprovals({"Bash": "allow_once"})
        session = await Session.open(SessionOptions(project=project, approvals=approvals))
        events = session.subscribe()
        turn = asyncio.create_task(session.submit("wait"))
        while True:
            event = await asyncio.wait_for(events.get(), 10)
            if event is not None and event.kind == "tool_call_started":
                break
        assert session.interrupt()
        outcome = await turn
        assert outcome.status == "interrupted"
        state = session.writer.state()
        assert state.last_turn is not None
        assert state.last_turn.status == "interrupted"
        results = [r for r in state.transcript if r.kind == "tool_result"]
        assert results[-1].output == "interrupted"
        # the chat goes on, and the next request is well-formed
        follow = await session.submit("go on")
        await session.aclose()
    assert follow.status == "completed"
    assert server.requests[-1].rejected is None


async def test_always_allow_writes_a_rule_and_the_next_call_does_not_ask(
    project: Path, zengine_home: Path
) -> None:
    async with configured_provider(zengine_home) as server:
        bash = {"command": "git status --short"}
        server.add(
            Reply(tool_calls=(ScriptedToolCall("Bash", bash),)),
            Reply(tool_calls=(ScriptedToolCall("Bash", {"command": "git status -b"}),)),
            Reply(text=("ok",)),
        )
        approvals = RecordingApprovals(default="always_allow")
        session = await Session.open(SessionOptions(project=project, approvals=approvals))
        await session.submit("status twice")
        await session.aclose()
        assert [r.suggested_rule for r in approvals.asked] == ["Bash(git status:*)"]
        local = (project / ".z-engine" / "settings.local.toml").read_text()
        assert '"Bash(git status:*)"' in local
        # a new chat on the (now trusted) project loads the rule: no question at all
        TrustStore().trust(project)
        server.add(Reply(tool_calls=(ScriptedToolCall("Bash", bash),)), Reply(text=("ok",)))
        fresh = RecordingApprovals({})
        again = await Session.open(SessionOptions(project=project, approvals=fresh))
        await again.submit("status")
        await again.aclose()
        assert fresh.asked == []


async def test_always_allow_on_a_protected_path_saves_no_rule(
    project: Path, zengine_home: Path
) -> None:
    """A protected path asks every time, so "Always allow" there runs the call once and writes
    no rule that could never apply (it would only make the user think it was remembered)."""

    (project / ".mcp.json").write_text("{}\n")
    async with configured_provider(zengine_home) as server:
        read = ScriptedToolCall("Read", {"path": ".mcp.json"})
        write = {"path": ".mcp.json", "content": '{"mcpServers": {}}\n'}
        server.add(
            Reply(tool_calls=(read,)),
            Reply(tool_calls=(ScriptedToolCall("Write", write),)),
            Reply(tool_calls=(ScriptedToolCall("Write", write),)),
            Reply(text=("ok",)),
        )
        approvals = RecordingApprovals(default="always_allow")
        session = await Session.open(SessionOptions(project=project, approvals=approvals))
        notices = session.subscribe()
        await session.submit("edit the MCP list twice")
        await session.aclose()
        texts = [e.text async for e in notices if isinstance(e, Notice) and e.topic == "settings"]
    assert len(approvals.asked) == 2  # asked both times: nothing was remembered
    assert not (project / ".z-engine" / "settings.local.toml").exists()
    assert (project / ".mcp.json").read_text() == '{"mcpServers": {}}\n'
    assert any("no rule saved" in t for t in texts), texts
