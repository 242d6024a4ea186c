"""The kernel's settings watch (issue 21.5): with a chat open and no turn running, a server added
to the user's settings starts, and the chat says so, within a few polls; a chat in a turn is
left alone until the turn ends."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

import pytest

from zengine_jupyter.kernel import _controller
from zengine_jupyter.kernel._controller import KernelController, TurnRequest
from zengine_jupyter.protocol import Notice
from zengine_jupyter.testing import ProviderServer
from zengine_jupyter.testing.mcp_chat import mcp_extension, settings_text, stdio_server
from zengine_jupyter.testing.mcp_server import fixture_children

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

pytestmark = pytest.mark.slow


async def until(check: Callable[[], bool], timeout_s: float = 60.0) -> None:
    async with asyncio.timeout(timeout_s):
        while not check():
            await asyncio.sleep(0.05)


async def test_the_kernel_reloads_an_idle_chat_when_a_settings_file_changes(
    project: Path, zengine_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_controller, "SETTINGS_POLL_S", 0.1)
    user = zengine_home / "settings.toml"
    async with ProviderServer() as model:
        user.write_text(settings_text(model.base_url, {"a": stdio_server()}))
        controller = KernelController(shell=None)  # type: ignore[arg-type]
        chat = await controller._chat(TurnRequest(text="", project=str(project)))
        session = chat.session
        events = session.subscribe()
        try:
            await mcp_extension(session).wait_ready(60)
            assert "mcp__b__echo" not in session.tools
            async with session.idle("hold the chat as a turn would"):
                servers = {"a": stdio_server(), "b": stdio_server()}
                user.write_text(settings_text(model.base_url, servers))
                await asyncio.sleep(0.5)  # several polls: a busy chat does not reload
                assert "mcp__b__echo" not in session.tools
            # idle again: the next poll reloads it, with no turn
            await until(lambda: "mcp__b__echo" in session.tools)
        finally:
            for task in list(controller.tasks):
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.gather(*controller.tasks)
            await session.aclose()
    texts = [e.text for e in [ev async for ev in events] if isinstance(e, Notice)]
    assert any("mcp server 'b' added" in t for t in texts), texts
    assert fixture_children() == []
