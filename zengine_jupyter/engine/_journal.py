"""Write first, then tell: every record reaches the log before its event is published."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zengine_jupyter.engine._bus import EventBus
    from zengine_jupyter.protocol._events import EngineEvent
    from zengine_jupyter.protocol._records import LogRecord
    from zengine_jupyter.store import SessionWriter

__all__ = ["Journal"]


class Journal:
    """A chat's log writer and event bus, used together."""

    def __init__(self, writer: SessionWriter, bus: EventBus) -> None:
        self.writer = writer
        self.bus = bus

    def record(self, record: LogRecord, event: EngineEvent | None = None) -> None:
        """Append ``record`` (flushed when this returns), then publish ``event``."""
        self.writer.append(record)
        if event is not None:
            self.bus.publish(event)

    def publish(self, event: EngineEvent) -> None:
        """An event with no record behind it (streamed deltas, questions, notices)."""
        self.bus.publish(event)
