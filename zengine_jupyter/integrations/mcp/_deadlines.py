"""One timer for every request a manager has in flight, instead of one per request.

``asyncio.timeout(s)`` schedules a timer handle per request and cancels it after: several
microseconds of an MCP call that costs ~300 us in all (issue 25: the engine may add at most
10 % to a bare SDK call). Every request of a manager has the same limit, so the oldest request
in flight always expires first: :class:`Deadlines` keeps one timer, at the oldest deadline,
re-armed when it fires. Each request still runs under its own ``asyncio.Timeout`` (opened with
no deadline; the timer sets one that has passed when the request is overdue), so it is
cancelled and ends in ``TimeoutError`` exactly as under ``asyncio.timeout``.
"""

from __future__ import annotations

import asyncio

__all__ = ["Deadlines"]


class Deadlines:
    """Requests in flight (each an entered ``asyncio.Timeout``) and their deadlines."""

    def __init__(self, limit_s: float) -> None:
        self.limit_s = limit_s
        self._due: dict[asyncio.Timeout, float] = {}
        self._timer: asyncio.TimerHandle | None = None

    def start(self, timeout: asyncio.Timeout) -> None:
        """``timeout`` (entered, with no deadline of its own) expires ``limit_s`` from now."""
        loop = asyncio.get_running_loop()
        due = loop.time() + self.limit_s
        self._due[timeout] = due
        if self._timer is None:
            self._timer = loop.call_at(due, self._fire)

    def done(self, timeout: asyncio.Timeout) -> None:
        self._due.pop(timeout, None)

    def _fire(self) -> None:
        self._timer = None
        loop = asyncio.get_running_loop()
        now = loop.time()
        for timeout, due in list(self._due.items()):
            if due <= now:
                del self._due[timeout]
                timeout.reschedule(now)  # passed: the request's task is cancelled now
        if self._due:
            self._timer = loop.call_at(min(self._due.values()), self._fire)
