"""The JupyterLab panel's side of the ``zengine`` comm, driven through a real kernel (tests).

Every message the kernel sends on the comm is validated against
:data:`~zengine_jupyter.protocol.KernelMessage` as it is read, so a test using this client
also proves the kernel speaks the wire protocol.
"""

from __future__ import annotations

import itertools
import time
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter

from zengine_jupyter.protocol import COMM_TARGET, KernelMessage, Reply

if TYPE_CHECKING:
    from collections.abc import Callable

    from pydantic import BaseModel

    from zengine_jupyter.protocol import EngineEvent
    from zengine_jupyter.testing.kernel import KernelHarness

__all__ = ["PanelClient", "event_kinds", "events"]

_MESSAGES: TypeAdapter[Any] = TypeAdapter(KernelMessage)


class PanelClient:
    """One panel comm on ``kernel``: open it, send requests, read what the kernel sends."""

    def __init__(self, kernel: KernelHarness, comm_id: str = "panel-1") -> None:
        self.kernel = kernel
        self.comm_id = comm_id
        self.closed_by_kernel = False
        self.subshell: str | None = None
        """Send requests on this kernel subshell (as JupyterLab 4.6 does), when set."""
        self._ids = itertools.count(1)
        self._pending: list[Any] = []
        """Messages read past while waiting for a reply, returned first by the next read."""

    def next_id(self) -> str:
        return f"{self.comm_id}-r{next(self._ids)}"

    def open(self, timeout: float = 20.0) -> Any:
        """``comm_open`` as the panel sends it; returns the kernel's ``hello``."""
        self.kernel.send_comm("comm_open", {"comm_id": self.comm_id, "target_name": COMM_TARGET,
                                            "data": {}})  # fmt: skip
        (hello,) = self.read(lambda m: True, timeout)
        return hello

    def send(self, request: BaseModel | dict[str, Any]) -> None:
        data = request if isinstance(request, dict) else request.model_dump(mode="json")
        self.kernel.send_comm("comm_msg", {"comm_id": self.comm_id, "data": data}, self.subshell)

    def exchange(self, request: BaseModel | dict[str, Any], timeout: float = 30.0) -> list[Any]:
        """Send ``request``; every message up to and including its reply."""
        self.send(request)
        wanted = request["id"] if isinstance(request, dict) else getattr(request, "id", None)
        return self.read(lambda m: isinstance(m, Reply) and m.id == wanted, timeout)

    def request(self, request: BaseModel | dict[str, Any], timeout: float = 30.0) -> Reply:
        """Send ``request`` and return its reply; messages before it are read again later."""
        found = self.exchange(request, timeout)
        self._pending[:0] = found[:-1]
        reply: Reply = found[-1]
        return reply

    def read(self, until: Callable[[Any], bool], timeout: float = 30.0) -> list[Any]:
        """Messages on this comm (validated), up to and including the first ``until`` takes."""
        found: list[Any] = []
        while self._pending:
            message = self._pending.pop(0)
            found.append(message)
            if until(message):
                return found
        deadline = time.monotonic() + timeout
        kept: list[dict[str, Any]] = []
        try:
            while True:
                what = f"{len(found)} messages on {self.comm_id}, none the one waited for"
                msg = self.kernel._next_iopub(deadline, what)
                content = msg["content"]
                if content.get("comm_id") != self.comm_id:
                    kept.append(msg)
                    continue
                if msg["msg_type"] == "comm_close":
                    self.closed_by_kernel = True
                    raise EOFError(f"the kernel closed {self.comm_id} after {found!r}")
                if msg["msg_type"] != "comm_msg":
                    continue
                message = _MESSAGES.validate_python(content["data"])
                found.append(message)
                if until(message):
                    return found
        finally:
            self.kernel._stash[:0] = kept

    def until_event(self, kind: str, timeout: float = 30.0) -> list[Any]:
        """Messages up to and including the first event of ``kind``."""
        return self.read(lambda m: m.kind == "event" and m.event.kind == kind, timeout)

    def wait_closed(self, timeout: float = 20.0) -> list[Any]:
        """Read until the kernel closes the comm; returns what came before."""
        found: list[Any] = []

        def keep(message: Any) -> bool:
            found.append(message)
            return False

        try:
            self.read(keep, timeout)
        except EOFError:
            return found
        raise AssertionError("the comm was not closed")  # pragma: no cover - read raises


def events(messages: list[Any]) -> list[EngineEvent]:
    """The engine events among ``messages``, in order."""
    return [m.event for m in messages if m.kind == "event"]


def event_kinds(messages: list[Any]) -> list[str]:
    return [e.kind for e in events(messages)]
