"""Write first, then tell: every record reaches the log before its event is published."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from zengine_jupyter.protocol import UsageRecord

if TYPE_CHECKING:
    from zengine_jupyter.engine._bus import EventBus
    from zengine_jupyter.protocol import EngineEvent, LogRecord, UsageEvent
    from zengine_jupyter.store import SessionWriter, WorkingItem

__all__ = ["Journal", "Journaling", "usage_record"]


def usage_record(event: UsageEvent) -> UsageRecord:
    """The log record of one billed model request."""
    u = event.usage
    return UsageRecord(model=event.model, input_tokens=u.input_tokens,
                       output_tokens=u.output_tokens, cache_read_tokens=u.cache_read_tokens,
                       cache_write_tokens=u.cache_write_tokens,
                       cost_usd=event.cost_usd)  # fmt: skip


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
