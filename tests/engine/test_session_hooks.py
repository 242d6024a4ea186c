"""Hooks run at their events: a pre_tool_use hook blocks a call; prompt and stop hooks run."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from zengine_jupyter.engine import FixedApprovals, Session, SessionOptions
from zengine_jupyter.testing import ProviderServer, Reply, ScriptedToolCall, write_provider_settings

BLOCKER = """
import json, sys
payload = json.load(sys.stdin)
with open(sys.argv[1], "a") as log:
    log.write(json.dumps({"event": payload["event"], "tool": payload.get("tool_name")}) + "\\n")
if payload["event"] == "pre_tool_use" and "rm " in payload["tool_input"].get("command", ""):
    sys.stderr.write("no deleting in this project")
    sys.exit(2)
"""


async def test_hooks_block_and_observe(tmp_path: Path, zengine_home: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "keep.txt").write_text("x")
    script, log = tmp_path / "hook.py", tmp_path / "hooks.jsonl"
    script.write_text(BLOCKER)
    command = json.dumps([sys.executable, str(script), str(log)])
    async with ProviderServer() as server:
        hooks = ("session_start", "user_prompt_submit", "pre_tool_use", "stop")
        write_provider_settings(
            zengine_home,
            server.base_url,
            "".join(f"[[hooks.{e}]]\ncommand = {command}\n" for e in hooks),
        )
        server.add(
            Reply(tool_calls=(ScriptedToolCall("Bash", {"command": "rm keep.txt"}),)),
            Reply(text=("Not deleted.",)),
        )
        session = await Session.open(
            SessionOptions(project=project, approvals=FixedApprovals(allow=True))
        )
        outcome = await session.submit("clean up")
        await session.aclose()
    assert outcome.status == "completed"
    assert (project / "keep.txt").exists()
    result = server.requests[1].json["messages"][-1]["content"][0]
    assert "no deleting in this project" in str(result["content"])
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["event"] for e in events] == [
        "session_start", "user_prompt_submit", "pre_tool_use", "stop"
    ]  # fmt: skip
    assert events[2]["tool"] == "Bash"
