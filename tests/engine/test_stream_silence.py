"""Issue 19.9: a provider that goes quiet mid-stream is shown ("waiting for the provider · Ns")
instead of nothing; a provider that keeps talking causes no such notice."""

from __future__ import annotations

from pathlib import Path

import pytest

from zengine_jupyter.engine import Session, SessionOptions, _stream
from zengine_jupyter.protocol import Notice
from zengine_jupyter.testing import (
    Reply,
    configured_provider,
)


async def _waiting_notices(project: Path, home: Path, reply: Reply) -> tuple[str, list[str]]:
    async with configured_provider(home) as server:
        server.add(reply)
        session = await Session.open(SessionOptions(project=project))
        events = session.subscribe()
        try:
            outcome = await session.submit("hi")
        finally:
            await session.aclose()
    notices = [
        e.text
        async for e in events
        if isinstance(e, Notice) and e.text.startswith("waiting for the provider")
    ]
    return outcome.text, notices


async def test_a_stall_mid_stream_is_shown(
    tmp_path: Path, zengine_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fault: the provider stops sending for a while mid-answer: the user saw nothing at all.
    (The marks are scaled down from 5 s, 10 s, ... to keep the test short.)"""
    monkeypatch.setattr(_stream, "WAIT_MARKS_S", (0.3, 0.6, 0.9))
    text, notices = await _waiting_notices(
        tmp_path, zengine_home, Reply(text=("slow ", "answer"), event_delay_s=1.2)
    )
    assert text == "slow answer"
    assert notices, "a silence longer than the first mark is shown"
    assert notices[0] == "waiting for the provider · 0.3s"
    assert "waiting for the provider · 0.6s" in notices


async def test_a_steady_stream_shows_no_waiting_notice(
    tmp_path: Path, zengine_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The notice is for silence only: a normal answer causes none."""
    monkeypatch.setattr(_stream, "WAIT_MARKS_S", (3.0,))
    text, notices = await _waiting_notices(tmp_path, zengine_home, Reply(text=("quick",)))
    assert text == "quick"
    assert notices == []
