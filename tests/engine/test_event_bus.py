"""The event bus: every subscriber gets every event; a slow one never stalls publishing."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from pydantic import TypeAdapter

from zengine_jupyter.engine._bus import EventBus
from zengine_jupyter.protocol import (
    CheckpointInfo,
    CheckpointTaken,
    EngineEvent,
    Resync,
    TextStreamed,
    ToolCallStarted,
    TurnEnded,
)


async def test_every_subscriber_sees_every_event_in_order() -> None:
    bus = EventBus("s1")
    a, b = bus.subscribe(), bus.subscribe()
    for i in range(5):
        bus.publish(TextStreamed(session_id="s1", turn_id="t", text=str(i)))
    bus.close()
    seen_a = [e.text async for e in a if isinstance(e, TextStreamed)]
    seen_b = [e.text async for e in b if isinstance(e, TextStreamed)]
    assert seen_a == seen_b == ["0", "1", "2", "3", "4"]


async def test_a_stalled_subscriber_gets_a_resync_not_a_stalled_turn() -> None:
    bus = EventBus("s1", limit=100)
    stalled, live = bus.subscribe(), bus.subscribe()
    received: list[str] = []

    async def consume() -> None:
        async for event in live:
            if isinstance(event, TextStreamed):
                received.append(event.text)

    consumer = asyncio.create_task(consume())
    for i in range(1000):
        bus.publish(TextStreamed(session_id="s1", text=str(i)))  # never awaits
        if i % 50 == 0:
            await asyncio.sleep(0)
    bus.close()
    await consumer
    assert len(received) == 1000
    assert stalled.resyncs >= 1
    first = await stalled.get()
    assert isinstance(first, Resync)
    assert stalled.pending() <= 101


async def test_events_round_trip_as_json() -> None:
    adapter: TypeAdapter[EngineEvent] = TypeAdapter(EngineEvent)
    info = CheckpointInfo(
        id="a" * 40, message="m", created=datetime(2026, 11, 30, tzinfo=UTC), file_count=3
    )
    events: list[EngineEvent] = [
        TurnEnded(session_id="s", turn_id="t", status="interrupted", reason="user"),
        CheckpointTaken(session_id="s", checkpoint=info),
    ]
    for event in events:
        assert adapter.validate_json(adapter.dump_json(event)) == event


async def test_a_subscriber_of_some_kinds_gets_only_those() -> None:
    """A watcher that waits for one kind (the checkpoints' retention) is not woken by the
    others: an MCP call publishes three events it does not care about (issue 25)."""
    bus = EventBus("s1")
    some = bus.subscribe((TurnEnded,))
    every = bus.subscribe()
    bus.publish(ToolCallStarted(session_id="s1", turn_id="t", call_id="c"))
    bus.publish(TurnEnded(session_id="s1", turn_id="t", status="completed"))
    assert some.pending() == 1
    assert every.pending() == 2
    assert isinstance(await some.get(), TurnEnded)
