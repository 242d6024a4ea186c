"""Through the real ``zengine`` command (issue 21, acceptance 2 and 3): a ``zengine run`` chat
gets its title from the model (``zengine sessions list``, meta.json), and a compacted chat
resumes from its summary after a ``zengine run`` on it was SIGKILLed mid-command."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from pathlib import Path

from zengine_jupyter.engine import SUMMARY_HEADER, Session, SessionOptions
from zengine_jupyter.protocol import CompactionRecord
from zengine_jupyter.store import SessionStore
from zengine_jupyter.testing import (
    ZENGINE,
    ProviderServer,
    Reply,
    ScriptedToolCall,
    configured_provider,
    run_cli,
    write_provider_settings,
)


async def test_zengine_run_names_the_chat_for_sessions_list(
    project: Path, zengine_home: Path
) -> None:
    async with configured_provider(zengine_home) as server:
        server.title_replies.append(Reply.answer("Pipeline rate check"))
        server.add(Reply.answer("RATE is 1."))
        code, out, err = await run_cli("run", "What is RATE?", cwd=project)
    assert code == 0, err
    assert out.strip() == "RATE is 1."
    code, listing, err = await run_cli("sessions", "list")
    assert code == 0, err
    assert listing.rstrip().endswith("Pipeline rate check")
    code, raw, _ = await run_cli("sessions", "list", "--json")
    (chat,) = json.loads(raw)
    meta = json.loads((zengine_home / "sessions" / chat["id"] / "meta.json").read_text())
    assert chat["title"] == meta["title"] == "Pipeline rate check"


async def test_a_compacted_chat_resumes_from_its_summary_after_zengine_run_is_killed(
    project: Path, zengine_home: Path
) -> None:
    async with ProviderServer() as server:
        write_provider_settings(zengine_home, server.base_url)
        session = await Session.open(SessionOptions(project=project))
        server.add(Reply.answer("Early answer."))
        await session.submit("early question about stage one")
        server.add(Reply.answer("Stage one reads the input."))
        assert (await session.submit("/compact")).text.startswith("compacted")
        chat = session.id
        await session.aclose()

        sleep = ScriptedToolCall("Bash", {"command": "touch started; sleep 30", "timeout": 60})
        server.add(Reply(tool_calls=(sleep,)))
        env = {**os.environ, "ZENGINE_HOME": str(zengine_home)}
        child = await asyncio.create_subprocess_exec(
            ZENGINE, "run", "--yes", "--session", chat, "run the slow step", cwd=project,
            env=env, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        deadline = time.monotonic() + 90
        while not (project / "started").exists():
            assert child.returncode is None, "zengine run ended before its command started"
            assert time.monotonic() < deadline, "the command never started"
            await asyncio.sleep(0.05)
        child.send_signal(signal.SIGKILL)
        await child.wait()

        resumed = await Session.open(SessionOptions(project=project, session_id=chat))
        server.add(Reply.answer("Back."))
        outcome = await resumed.submit("where were we?")
        await resumed.aclose()

    assert outcome.status == "completed", outcome.reason
    messages = server.requests[-1].json["messages"]
    first = messages[0]["content"]
    text = first if isinstance(first, str) else "".join(p.get("text", "") for p in first)
    assert text.startswith(SUMMARY_HEADER)
    assert "Stage one reads the input." in text
    body = json.dumps(messages)
    assert "early question about stage one" not in body  # only in the summary's transcript
    assert "run the slow step" in body  # the killed turn stays, closed as interrupted
    assert '"interrupted"' in body
    records = SessionStore().read(chat).state.transcript
    assert len([r for r in records if isinstance(r, CompactionRecord)]) == 1
