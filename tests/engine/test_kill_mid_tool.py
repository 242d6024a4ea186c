"""Kill the process in the middle of a tool call; reopening closes the turn as Interrupted,
answers the call "interrupted", and the next request passes the provider's validation."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

from zengine_jupyter.engine import Session, SessionOptions
from zengine_jupyter.testing import (
    Reply,
    ScriptedToolCall,
    configured_provider,
)


async def test_sigkill_during_a_tool_call_then_resume(tmp_path: Path, zengine_home: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    async with configured_provider(zengine_home) as server:
        bash = ScriptedToolCall("Bash", {"command": "sleep 5"})
        server.add(Reply(text=("Running it.",), tool_calls=(bash,)))
        child = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "zengine_jupyter.testing.session_child", str(project), "go",
            stdout=asyncio.subprocess.PIPE, env=dict(os.environ),
        )  # fmt: skip
        assert child.stdout is not None
        session_id = (await asyncio.wait_for(child.stdout.readline(), 60)).decode().split()[1]
        started = await asyncio.wait_for(child.stdout.readline(), 60)
        assert started.startswith(b"STARTED ")
        child.send_signal(signal.SIGKILL)
        await child.wait()

        server.add(Reply(text=("Picking up where we stopped.",)))
        resumed = await Session.open(SessionOptions(project=project, session_id=session_id))
        state = resumed.writer.state()
        assert state.last_turn is not None
        assert state.last_turn.status == "interrupted"
        answers = [r for r in state.transcript if r.kind == "tool_result"]
        assert [a.output for a in answers] == ["interrupted"]
        outcome = await resumed.submit("go on")
        await resumed.aclose()
    assert outcome.status == "completed"
    last = server.requests[-1]
    assert last.rejected is None
    messages = last.json["messages"]
    assert messages[1]["content"][-1]["type"] == "tool_use"
    assert messages[2]["content"][0]["type"] == "tool_result"
