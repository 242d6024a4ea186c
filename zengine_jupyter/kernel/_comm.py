"""The ``zengine`` comm target the JupyterLab panel opens: one :class:`PanelComm` per comm.

Messages follow the wire protocol in ``protocol/_wire.py`` (versioned ``v``, tagged by
``kind``, correlated by ``id``); every message sent is built from its pydantic models, which
are imported on the first comm (never by ``%load_ext``). The requests are answered in
``_requests.py``.

Threading: JupyterLab may send comm messages over a kernel subshell, so ``on_msg`` and
``on_close`` may run on another thread with its own loop. They only hand the message to the
kernel's loop (``call_soon_threadsafe``); everything else, ``comm.send`` included, runs there.

A comm follows one chat (:meth:`PanelComm.follow`): a :class:`~zengine_jupyter.protocol.Snapshot`
of it, then each of its events as an ``event`` message. A ``resync`` event (the comm fell
behind) and a conversation rewind are answered with a fresh unprompted snapshot instead.
A comm subscribed without a session id follows the kernel's current chat: the next chat that
opens when there is none yet, and whichever chat ``%%agent`` (or a panel) makes current.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from zengine_jupyter._version import __version__
from zengine_jupyter.protocol import COMM_TARGET, WIRE_VERSION

if TYPE_CHECKING:
    from collections.abc import Callable

    from pydantic import BaseModel

    from zengine_jupyter.engine import Subscription
    from zengine_jupyter.kernel._controller import KernelController, _Chat
    from zengine_jupyter.protocol import Reply, Snapshot

__all__ = ["COMM_TARGET", "WIRE_VERSION", "PanelComm", "open_comm"]


def open_comm(comm: Any, open_msg: dict[str, Any]) -> None:
    """Handler registered for ``COMM_TARGET`` (any thread): greet, then answer requests."""
    from IPython import get_ipython

    from zengine_jupyter.kernel._extension import controller_for
    from zengine_jupyter.protocol import HelloMessage

    controller = controller_for(get_ipython())
    if controller is None or controller.loop is None or controller.loop.is_closed():
        comm.close()  # zengine is not loaded (any more) in this kernel
        return
    try:
        view = PanelComm(comm, controller)
        comm.send(HelloMessage(version=__version__).model_dump(mode="json"))
    except Exception:  # never an error in the kernel's log for a panel's comm_open
        with contextlib.suppress(Exception):
            comm.close()
        return
    view.post(view.register)


class PanelComm:
    """One open panel comm: follows one chat and answers the panel's requests."""

    def __init__(self, comm: Any, controller: KernelController) -> None:
        assert controller.loop is not None
        self.comm = comm
        self.controller = controller
        self.loop: asyncio.AbstractEventLoop = controller.loop
        self.chat: _Chat | None = None
        """The chat this comm follows (None: none yet)."""
        self.follows_current = False
        """Subscribed to the kernel's current chat (no session id): follow it when ``%%agent``
        (``--new``, ``--session``) or a panel makes another chat current; also while the
        kernel has no chat yet."""
        self.closed = False
        self._sub: Subscription | None = None
        self._pump: asyncio.Task[None] | None = None
        self.tasks: set[asyncio.Task[Any]] = set()
        comm.on_msg(self._on_msg)
        comm.on_close(self._on_close)

    # ------------------------------------------------------------ any thread
    def post(self, callback: Callable[..., object], *args: Any) -> None:
        """Run ``callback(*args)`` on the kernel's loop (from any thread)."""
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nothing to do
            self.loop.call_soon_threadsafe(callback, *args)

    def _on_msg(self, msg: dict[str, Any]) -> None:
        self.post(self._receive, msg.get("content", {}).get("data"))

    def _on_close(self, msg: dict[str, Any]) -> None:
        """The panel closed the comm (or the kernel is going away)."""
        self.post(self.detach)

    # ------------------------------------------------------------ on the loop
    def register(self) -> None:
        """Join the controller's views (closed at once if ``%unload_ext`` came first)."""
        if self.controller.closed:
            self.close()
        else:
            self.controller.views.add(self)

    def send(self, message: BaseModel) -> None:
        if self.closed:
            return
        try:
            self.comm.send(message.model_dump(mode="json"))
        except Exception:  # the comm is gone underneath us: stop following
            self.detach()

    def _receive(self, data: Any) -> None:
        from zengine_jupyter.kernel._requests import answer_now, failure, parse_request

        if self.closed or not isinstance(data, dict) or not isinstance(data.get("id"), str):
            return  # not a request: nothing to correlate a reply with
        request, failed = parse_request(data)
        if failed is not None:
            self.send(failed)
            return
        try:
            reply = answer_now(self, request)
        except Exception as exc:  # nothing the engine raises reaches the kernel
            reply = failure(request.id, exc)
        if reply is not None:
            self.send(reply)
            return
        task = self.loop.create_task(self._answer(request), name=f"zengine-panel-{data['kind']}")
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _answer(self, request: Any) -> None:
        from zengine_jupyter.kernel._requests import answer_later, failure

        try:
            reply: Reply = await answer_later(self, request)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # nothing the engine raises reaches the kernel
            reply = failure(request.id, exc)
        self.send(reply)

    # ------------------------------------------------------------ following a chat
    def snapshot(self, chat: _Chat | None, request_id: str | None = None) -> Snapshot:
        from zengine_jupyter.protocol import Snapshot

        if chat is None:
            return Snapshot(id=request_id, session_id="")
        return Snapshot(
            id=request_id,
            session_id=chat.session.id,
            records=list(chat.session.writer.state().transcript),
            pending=list(chat.approvals.requests.values()),
            running_turn_id=chat.running_turn_id,
        )

    def follow(
        self, chat: _Chat | None, request_id: str | None = None, *, current: bool = False
    ) -> None:
        """Follow ``chat`` from now on (``current``: and whichever chat becomes the kernel's
        current one; None: none yet); sends its snapshot."""
        self._unfollow()
        self.chat = chat
        self.follows_current = current or chat is None
        self.send(self.snapshot(chat, request_id))
        if chat is not None:
            self._sub = sub = chat.session.subscribe()
            self._pump = self.loop.create_task(self._forward(sub, chat), name="zengine-panel-pump")

    def chat_opened(self, chat: _Chat) -> None:
        """The controller made ``chat`` current: a comm following the current chat switches
        to it (an unprompted snapshot, then its events)."""
        if self.follows_current and not self.closed and chat is not self.chat:
            self.follow(chat, current=True)

    async def _forward(self, sub: Subscription, chat: _Chat) -> None:
        from zengine_jupyter.protocol import EngineError, EventMessage

        try:
            await self._pump_events(sub, chat)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # never a task error in the kernel's log: tell the panel
            sub.close()
            self.send(EventMessage(event=EngineError(
                session_id=chat.session.id, message=f"the panel stopped following chat "
                f"{chat.session.id}: {type(exc).__name__}: {exc}",
                hint="reopen the panel or subscribe again")))  # fmt: skip

    async def _pump_events(self, sub: Subscription, chat: _Chat) -> None:
        from zengine_jupyter.protocol import EventMessage

        while (event := await sub.get()) is not None:
            if event.kind == "resync":
                self.send(self.snapshot(chat))
                continue
            if event.kind == "trust_required" and not chat.session.settings.withheld:
                continue  # replayed from the chat's start, but trusted since
            self.send(EventMessage(event=event))
            if event.kind == "rewound" and event.result.conversation:
                self.send(self.snapshot(chat))

    def _unfollow(self) -> None:
        if self._sub is not None:
            self._sub.close()
            self._sub = None
        if self._pump is not None:
            self._pump.cancel()
            self.tasks.add(self._pump)  # awaited by close() like the request tasks
            self._pump.add_done_callback(self.tasks.discard)
            self._pump = None
        self.chat = None
        self.follows_current = False

    def detach(self) -> list[asyncio.Task[Any]]:
        """Stop forwarding and answering; returns the tasks cancelled (to wait for)."""
        self.closed = True
        self._unfollow()
        tasks = list(self.tasks)
        for task in tasks:
            task.cancel()
        self.controller.views.discard(self)
        self.controller.live.forget(self)
        return tasks

    def close(self) -> list[asyncio.Task[Any]]:
        """``%unload_ext``: detach and close the comm (the panel sees it close)."""
        already = self.closed
        tasks = self.detach()
        if not already:
            with contextlib.suppress(Exception):
                self.comm.close()
        return tasks
