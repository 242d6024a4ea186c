"""PanelComm in-process on a real chat: messages from another thread, a subscriber that fell
behind (resync -> a fresh snapshot), an engine error as a failed reply, and closing."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from zengine_jupyter.engine import Session, SessionOptions
from zengine_jupyter.kernel._approvals import KernelApprovals
from zengine_jupyter.kernel._comm import PanelComm
from zengine_jupyter.kernel._controller import KernelController, _Chat
from zengine_jupyter.protocol import (
    EngineError,
    EventMessage,
    HelloMessage,
    KernelMessage,
    Notice,
    Reply,
    Snapshot,
)
from zengine_jupyter.testing import FakeModelClient

MESSAGES: TypeAdapter[Any] = TypeAdapter(KernelMessage)


class FakeComm:
    """What PanelComm uses of an ipykernel comm; callbacks are called by the test."""

    def __init__(self) -> None:
        self.sent: list[Any] = []
        self.closed = False
        self.on_msg_cb: Callable[[dict[str, Any]], None] | None = None
        self.on_close_cb: Callable[[dict[str, Any]], None] | None = None

    def send(self, data: dict[str, Any]) -> None:
        self.sent.append(MESSAGES.validate_python(data))

    def on_msg(self, callback: Callable[[dict[str, Any]], None]) -> None:
        self.on_msg_cb = callback

    def on_close(self, callback: Callable[[dict[str, Any]], None]) -> None:
        self.on_close_cb = callback

    def close(self) -> None:
        self.closed = True

    def from_thread(self, data: dict[str, Any]) -> None:
        """Deliver ``data`` as a comm message on another thread (a kernel subshell)."""
        assert self.on_msg_cb is not None
        callback = self.on_msg_cb
        thread = threading.Thread(target=lambda: callback({"content": {"data": data}}))
        thread.start()
        thread.join()


async def _until(check: Callable[[], bool], timeout: float = 10.0) -> None:
    async with asyncio.timeout(timeout):
        while not check():
            await asyncio.sleep(0.01)


@pytest.fixture
async def chat(tmp_path: Path, zengine_home: Path) -> AsyncIterator[_Chat]:
    project = tmp_path / "proj"
    project.mkdir()
    approvals = KernelApprovals()
    session = await Session.open(
        SessionOptions(project=project, approvals=approvals, client=FakeModelClient())
    )
    try:
        yield _Chat(session, approvals)
    finally:
        await session.aclose()


async def test_a_view_that_fell_behind_gets_a_fresh_snapshot(
    chat: _Chat, monkeypatch: pytest.MonkeyPatch
) -> None:
    others = set(chat.session.bus._subscribers)  # the chat's own (checkpoints)
    controller = KernelController(shell=None)  # type: ignore[arg-type]
    controller.chats[chat.session.id] = chat
    controller.current = chat.session.id
    comm = FakeComm()
    view = PanelComm(comm, controller)
    controller.views.add(view)

    # a request from a subshell thread is answered on the loop
    comm.from_thread({"v": 1, "kind": "hello", "id": "h1", "client_version": "0"})
    await _until(lambda: bool(comm.sent))
    hello = comm.sent[0]  # a local: a narrowed comm.sent[0] would outlive comm.sent.clear()
    assert isinstance(hello, HelloMessage)
    assert hello.id == "h1"

    comm.from_thread({"v": 1, "kind": "subscribe", "id": "s1"})
    await _until(lambda: any(isinstance(m, Reply) for m in comm.sent))
    assert [type(m) for m in comm.sent[1:3]] == [Snapshot, Reply]
    comm.sent.clear()

    # more events than a subscriber may queue: the backlog becomes one fresh snapshot
    limit = chat.session.bus.limit
    for n in range(limit + 5):
        chat.session.bus.publish(Notice(session_id=chat.session.id, topic="t", text=str(n)))
    await _until(lambda: any(getattr(m, "event", None) and m.event.text == str(limit + 4)
                             for m in comm.sent))  # fmt: skip
    assert isinstance(comm.sent[0], Snapshot)
    assert (comm.sent[0].id, comm.sent[0].session_id) == (None, chat.session.id)
    forwarded = [m.event for m in comm.sent if isinstance(m, EventMessage)]
    assert len(forwarded) < limit
    assert all(e.kind != "resync" for e in forwarded)

    # an engine error is a failed reply with its hint, never an exception in the kernel
    comm.from_thread({"v": 1, "kind": "rewind", "id": "w1", "turn_id": "nope", "scope": "both"})
    await _until(lambda: any(isinstance(m, Reply) and m.id == "w1" for m in comm.sent))
    (failed,) = [m for m in comm.sent if isinstance(m, Reply) and m.id == "w1"]
    assert not failed.ok
    assert "has no user message 'nope'" in (failed.error or "")
    assert failed.hint

    # following breaks (here: the snapshot after a resync): an error event, no task error
    comm.sent.clear()

    def broken(*_args: object) -> Snapshot:
        raise OSError("log unreadable")

    monkeypatch.setattr(view, "snapshot", broken)
    for n in range(limit + 1):
        chat.session.bus.publish(Notice(session_id=chat.session.id, topic="t", text=str(n)))
    await _until(lambda: any(isinstance(m, EventMessage) and m.event.kind == "error"
                             for m in comm.sent))  # fmt: skip
    (error,) = [m.event for m in comm.sent if isinstance(m, EventMessage)]
    assert isinstance(error, EngineError)
    assert "stopped following" in error.message
    assert "OSError: log unreadable" in error.message
    await _until(lambda: chat.session.bus._subscribers == others)

    # the panel closes the comm (on another thread): nothing is forwarded any more
    assert comm.on_close_cb is not None
    callback = comm.on_close_cb
    threading.Thread(target=lambda: callback({})).start()
    await _until(lambda: not controller.views)
    await _until(lambda: not view.tasks)
    assert chat.session.bus._subscribers == others
    comm.sent.clear()
    chat.session.bus.publish(Notice(session_id=chat.session.id, topic="t", text="late"))
    comm.from_thread({"v": 1, "kind": "hello", "id": "h2", "client_version": "0"})
    await asyncio.sleep(0.05)
    assert comm.sent == []
    assert not comm.closed  # the panel closed it: the kernel does not close it again

    # a comm that opened just before %unload_ext closed the controller is closed at once
    controller.chats.clear()  # the fixture closes the chat (no nested loop run here)
    controller.close()
    late_comm = FakeComm()
    PanelComm(late_comm, controller).register()
    assert late_comm.closed
    assert not controller.views
