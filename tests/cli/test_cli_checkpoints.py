"""``zengine checkpoints list|gc`` and ``zengine rewind`` on a chat made through the engine."""

from __future__ import annotations

import json
from pathlib import Path

from zengine_jupyter.engine import FixedApprovals, Session, SessionOptions
from zengine_jupyter.protocol import REWIND_LIMITS, MessageRecord
from zengine_jupyter.store import SessionStore
from zengine_jupyter.testing import (
    Reply,
    ScriptedToolCall,
    configured_provider,
    run_cli,
)


async def make_chat(project: Path, home: Path) -> str:
    async with configured_provider(home) as server:
        server.add(
            Reply(text=("hello",)),
            Reply(tool_calls=(ScriptedToolCall(
                "Bash", {"command": "echo changed > notes.txt && echo x > extra.txt"}),)),
            Reply(text=("done",)),
            Reply(text=("bye",)),
        )  # fmt: skip
        session = await Session.open(
            SessionOptions(project=project, approvals=FixedApprovals(allow=True))
        )
        for prompt in ("say hello", "change the notes", "goodbye"):
            assert (await session.submit(prompt)).status == "completed"
        await session.aclose()
        return session.id


async def test_list_rewind_and_gc_from_a_terminal(tmp_path: Path, zengine_home: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "notes.txt").write_text("draft\n")
    chat = await make_chat(project, zengine_home)
    assert (project / "extra.txt").exists()

    code, out, err = await run_cli("checkpoints", "list", chat, cwd=project)
    assert code == 0, err
    assert "1. [" in out
    assert "say hello" in out
    assert "2. [" in out
    assert "files: checkpoint" in out
    assert "no file changes from here on" in out  # message 3: no tool ran after it
    code, out, _ = await run_cli("checkpoints", "list", chat, "--json", cwd=project)
    rows = json.loads(out)
    assert [r["prompt"] for r in rows] == ["say hello", "change the notes", "goodbye"]
    assert rows[0]["checkpoint_id"] == rows[1]["checkpoint_id"]

    # while another process has the chat open, rewinding is refused
    holder = await Session.open(SessionOptions(project=project, session_id=chat))
    code, _, err = await run_cli("rewind", chat, "--to", "2", cwd=project)
    await holder.aclose()
    assert code == 1
    assert "zengine:" in err
    assert (project / "extra.txt").exists()

    code, out, err = await run_cli("rewind", chat, "--to", "2", "--both", cwd=project)
    assert code == 0, err
    assert "1 restored, 1 created since removed" in out
    assert REWIND_LIMITS in out
    assert (project / "notes.txt").read_text() == "draft\n"
    assert not (project / "extra.txt").exists()
    state = SessionStore().read(chat).state
    prompts = [r.text for r in state.transcript if isinstance(r, MessageRecord)]
    assert prompts == ["say hello", "hello"]

    code, out, err = await run_cli("checkpoints", "gc", "--json", cwd=project)
    assert code == 0, err
    report = json.loads(out)["reports"][0]
    assert report["project"] == str(project.resolve())
    assert report["removed"] == 0
    assert report["kept"] >= 2
