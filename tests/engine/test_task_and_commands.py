"""Task runs a subagent with its own transcript and the parent's permissions; custom
commands expand, and an untrusted project's command gets no grants and runs no !lines."""

from __future__ import annotations

from pathlib import Path

from zengine_jupyter.config import TrustStore
from zengine_jupyter.engine import FixedApprovals, Session, SessionOptions
from zengine_jupyter.store import SessionStore
from zengine_jupyter.testing import (
    Reply,
    ScriptedToolCall,
    configured_provider,
)


async def test_task_runs_a_subagent_with_its_own_log(tmp_path: Path, zengine_home: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "data.csv").write_text("a,b\n1,2\n")
    async with configured_provider(zengine_home) as server:
        task = {"description": "count columns", "prompt": "How many columns has data.csv?"}
        server.add(
            Reply(tool_calls=(ScriptedToolCall("Task", task),)),  # parent
            Reply(tool_calls=(ScriptedToolCall("Read", {"path": "data.csv"}),)),  # subagent
            Reply(tool_calls=(ScriptedToolCall("Bash", {"command": "rm data.csv"}),)),  # sub
            Reply(text=("Two columns.",)),  # subagent's answer
            Reply(text=("The file has two columns.",)),  # parent
        )
        session = await Session.open(SessionOptions(project=project))  # no approvals: deny
        outcome = await session.submit("inspect the data")
        await session.aclose()
    assert outcome.text == "The file has two columns."
    assert (project / "data.csv").exists()  # the subagent had no more rights than its parent
    sub_first = server.requests[1].json
    assert [m["role"] for m in sub_first["messages"]] == ["user"]
    assert sub_first["messages"][0]["content"][0]["text"] == task["prompt"]
    assert "Task" not in [t["name"] for t in sub_first["tools"]]
    parent_last = server.requests[4].json["messages"][-1]["content"][0]
    assert "Two columns." in str(parent_last["content"])
    state = session.writer.state()
    kinds = [r.kind for r in state.transcript]
    assert "subagent_start" in kinds
    assert "subagent_end" in kinds
    agent_id = next(r.agent_id for r in state.transcript if r.kind == "subagent_start")
    agent_log = SessionStore().read_agent(session.id, agent_id)
    assert [r.kind for r in agent_log].count("tool_result") == 2
    assert state.tokens.input >= 5 * 12  # every request's usage, the subagent's included


async def test_custom_commands_and_untrusted_projects(tmp_path: Path, zengine_home: Path) -> None:
    project = tmp_path / "p"
    (project / ".z-engine" / "commands").mkdir(parents=True)
    marker = tmp_path / "inline-ran"
    (project / ".z-engine" / "commands" / "ship.md").write_text(
        "---\ndescription: ship it\nallowed-tools: Bash(touch:*)\n---\n"
        f"Ship $ARGUMENTS now. Status: !`touch {marker} && echo clean`\n"
    )
    async with configured_provider(zengine_home) as server:
        # inside the project: an allow rule never covers a write outside it (issue 18 item 5)
        touch = ScriptedToolCall("Bash", {"command": f"touch {project / 'made'}"})
        server.add(Reply(tool_calls=(touch,)), Reply(text=("shipped",)))
        session = await Session.open(SessionOptions(project=project))
        await session.submit("/ship v2")
        await session.aclose()
        prompt = server.requests[0].json["messages"][0]["content"][0]["text"]
        assert prompt.startswith("Ship v2 now.")
        assert "not run" in prompt
        assert not marker.exists()
        assert not (project / "made").exists()  # no grant: the Bash call was denied

        TrustStore().trust(project)
        server.add(Reply(tool_calls=(touch,)), Reply(text=("shipped",)))
        deny = FixedApprovals(allow=False)
        trusted = await Session.open(SessionOptions(project=project, approvals=deny))
        await trusted.submit("/ship v3")
        after = await trusted.submit("/help")
        await trusted.aclose()
        prompt = server.requests[2].json["messages"][-1]["content"][-1]["text"]
        assert "Status: clean" in prompt
        assert marker.exists()
        assert (project / "made").exists()  # allowed by the command's rule, for its turn
        assert "/ship" in after.text
        assert trusted.gate.policy.allow == ()  # the grant did not outlive the turn
