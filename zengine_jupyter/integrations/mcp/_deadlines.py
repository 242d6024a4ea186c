"""One timer for every request a manager has in flight, and no context manager per request.

``asyncio.timeout(s)`` per request schedules a timer handle, cancels it after, and enters and
leaves an async context manager: several microseconds of an MCP call whose whole bookkeeping
may cost at most 10 % of a bare SDK call (issue 25). Every request of a manager has the same
limit, so the oldest request in flight always expires first: :class:`Deadlines` keeps one
timer, at the oldest deadline, re-armed when it fires. An overdue request's task is cancelled,
and :meth:`Deadlines.done` then tells that cancellation from any other as ``asyncio.Timeout``
does (the task's ``cancelling()`` count when the request started, and one ``uncancel()`` for
the cancellation the deadline made).

A task awaits one request at a time, so requests are known by their task.
"""

from __future__ import annotations

import asyncio
from typing import Any

__all__ = ["Deadlines"]

Task = asyncio.Task[Any]


class Deadlines:
    """Requests in flight (by the task awaiting each) and their deadlines."""

    def __init__(self, limit_s: float) -> None:
        self.limit_s = limit_s
        self._due: dict[Task, tuple[float, int]] = {}
        """Each request's deadline, and its task's ``cancelling()`` count when it started."""
        self._fired: dict[Task, int] = {}
        """Requests the deadline cancelled that have not ended yet."""
        self._timer: asyncio.TimerHandle | None = None

    def start(self) -> Task:
        """Time the request this task sends now (``limit_s`` from now). Returns the task: pass
        it to :meth:`done` once the request ends, however it ends (in a ``finally``)."""
        loop = asyncio.get_running_loop()
        task = asyncio.current_task(loop)
        if task is None:
            raise RuntimeError("an MCP request is timed in a task")
        due = loop.time() + self.limit_s
        self._due[task] = (due, task.cancelling())
        if self._timer is None:
            self._timer = loop.call_at(due, self._fire)
        return task

    def done(self, task: Task) -> bool:
        """``task``'s request ended. Whether the deadline cancelled it: then a
        ``CancelledError`` ending the request is the deadline's, unless the task was also
        cancelled from outside, and the caller raises its timeout instead (the deadline's
        cancel is taken back either way, as ``asyncio.Timeout`` does)."""
        if self._due.pop(task, None) is not None:
            return False
        cancelling = self._fired.pop(task, None)
        return cancelling is not None and task.uncancel() <= cancelling

    def _fire(self) -> None:
        self._timer = None
        loop = asyncio.get_running_loop()
        now = loop.time()
        for task, (due, cancelling) in list(self._due.items()):
            if due <= now:
                del self._due[task]
                self._fired[task] = cancelling
                task.cancel(f"MCP request over its {self.limit_s:g} s limit")
        if self._due:
            self._timer = loop.call_at(min(due for due, _ in self._due.values()), self._fire)
