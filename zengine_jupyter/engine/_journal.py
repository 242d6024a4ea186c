"""Write first, then tell: every record reaches the log before its event is published."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from zengine_jupyter.engine._bus import EventBus
    from zengine_jupyter.protocol import EngineEvent, LogRecord
    from zengine_jupyter.store import SessionWriter, WorkingItem

__all__ = ["Journal", "Journaling"]


class Journaling(Protocol):
    """What the turn loop writes to: the chat's journal, or a subagent's."""

    def record(self, record: LogRecord, event: EngineEvent | None = None) -> None: ...

    def publish(self, event: EngineEvent) -> None: ...

    def working_set(self) -> tuple[WorkingItem, ...]: ...

    def turn_ended(self) -> None: ...


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

    def working_set(self) -> tuple[WorkingItem, ...]:
        """What the model sees next: the chat's replayed working set."""
        return self.writer.state().working_set

    def turn_ended(self) -> None:
        """Keep meta.json current for chat lists."""
        self.writer.write_meta()
