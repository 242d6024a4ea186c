"""The first request of a turn waits for MCP servers still starting (issue 21.6), in the turn:
an interrupt ends the wait at once, and ``mcp.startup_wait = 0`` does not wait at all."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

import zengine_jupyter
from zengine_jupyter.engine import Session, SessionOptions
from zengine_jupyter.protocol import Notice
from zengine_jupyter.testing import ProviderServer, Reply
from zengine_jupyter.testing.mcp_chat import settings_text, stdio_server
from zengine_jupyter.testing.mcp_server import fixture_children

pytestmark = pytest.mark.slow

CHECKOUT = str(Path(zengine_jupyter.__file__).parents[1])


def sleepy_server(delay_s: float) -> dict[str, Any]:
    """A fixture server (this checkout's) that takes ``delay_s`` before it speaks MCP."""
    return stdio_server("--start-delay", str(delay_s), env={"PYTHONPATH": CHECKOUT})


async def test_an_interrupt_ends_the_wait_for_a_slow_server(
    project: Path, zengine_home: Path
) -> None:
    async with ProviderServer() as model:
        text = settings_text(model.base_url, {"sleepy": sleepy_server(60)})
        (zengine_home / "settings.toml").write_text(text + "\n[mcp]\nstartup_wait = 60\n")
        session = await Session.open(SessionOptions(project=project))
        events = session.subscribe()
        turn = asyncio.create_task(session.submit("hello"))
        async for event in events:
            if isinstance(event, Notice) and event.text == "waiting for MCP servers (sleepy)":
                assert event.turn_id is not None  # the wait belongs to the turn
                break
        started = time.monotonic()
        assert session.interrupt()
        outcome = await turn
        assert outcome.status == "interrupted"
        assert time.monotonic() - started < 5
        assert model.requests == []  # nothing was sent
        await session.aclose()
    assert fixture_children() == []


async def test_a_zero_wait_sends_the_first_request_at_once(
    project: Path, zengine_home: Path
) -> None:
    async with ProviderServer() as model:
        text = settings_text(model.base_url, {"sleepy": sleepy_server(60)})
        (zengine_home / "settings.toml").write_text(text + "\n[mcp]\nstartup_wait = 0\n")
        session = await Session.open(SessionOptions(project=project))
        events = session.subscribe()
        model.add(Reply(text=("no wait",)))
        started = time.monotonic()
        outcome = await session.submit("hello")
        assert outcome.text == "no wait"
        assert time.monotonic() - started < 10
        (request,) = model.requests
        assert not any(t["name"].startswith("mcp__") for t in request.json["tools"])
        await session.aclose()
    texts = [e.text for e in [ev async for ev in events] if isinstance(e, Notice)]
    assert not any(t.startswith("waiting for MCP servers") for t in texts)
    assert fixture_children() == []
