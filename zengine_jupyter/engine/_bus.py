"""Fan-out of engine events: one queue per subscriber, and publishing never waits.

A subscriber that falls more than ``limit`` events behind loses its backlog and gets a
single :class:`Resync` instead: it rebuilds its view from the session log (which always
holds everything, because records are written before their events are published).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from zengine_jupyter.protocol import Resync

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from zengine_jupyter.protocol import EngineEvent

__all__ = ["EventBus", "Subscription"]

_CLOSED = object()


class Subscription:
    """One subscriber's view: iterate it (``async for event in sub``) or ``await sub.get()``."""

    def __init__(
        self, bus: EventBus, limit: int, kinds: tuple[type[EngineEvent], ...] | None = None
    ) -> None:
        self._bus = bus
        self._limit = limit
        self._kinds = kinds
        self._queue: asyncio.Queue[object] = asyncio.Queue()
        self.resyncs = 0

    def _offer(self, event: EngineEvent, session_id: str) -> None:
        if self._queue.qsize() >= self._limit:
            while not self._queue.empty():
                self._queue.get_nowait()
            self.resyncs += 1
            self._queue.put_nowait(Resync(session_id=session_id))
        self._queue.put_nowait(event)

    async def get(self) -> EngineEvent | None:
        """The next event, or None once the bus is closed."""
        item = await self._queue.get()
        if item is _CLOSED:
            self._queue.put_nowait(_CLOSED)
            return None
        return item  # type: ignore[return-value]

    def pending(self) -> int:
        return self._queue.qsize()

    def close(self) -> None:
        self._bus._subscribers.discard(self)
        self._queue.put_nowait(_CLOSED)

    def __aiter__(self) -> AsyncIterator[EngineEvent]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[EngineEvent]:
        while (event := await self.get()) is not None:
            yield event


class EventBus:
    """Publishes a session's events to every subscriber without ever blocking the turn."""

    def __init__(self, session_id: str, limit: int = 10_000) -> None:
        self.session_id = session_id
        self.limit = limit
        self._subscribers: set[Subscription] = set()

    def subscribe(self, kinds: tuple[type[EngineEvent], ...] | None = None) -> Subscription:
        """A new subscriber; ``kinds``: only events of these types (a watcher that waits for
        one kind costs nothing on the others: an MCP call publishes three)."""
        sub = Subscription(self, self.limit, kinds)
        self._subscribers.add(sub)
        return sub

    def publish(self, event: EngineEvent) -> None:
        """Hand ``event`` to every subscriber (never awaits, never raises for a slow one)."""
        for sub in tuple(self._subscribers):
            kinds = sub._kinds
            if kinds is None or isinstance(event, kinds):  # else: no wake-up for nothing
                sub._offer(event, self.session_id)

    def close(self) -> None:
        for sub in tuple(self._subscribers):
            sub.close()
