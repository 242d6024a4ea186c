"""Every record is on disk before its event is published (spec: Sessions and persistence,
"written before the matching event reaches the window"). A subscriber reads the chat's
``log.jsonl`` at the moment each event is handed to it, and finds the event's record there:
a frontend that rebuilds from the log after a ``Resync`` never misses what it was told."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from zengine_jupyter.engine import Session, SessionOptions
from zengine_jupyter.protocol import (
    CheckpointTaken,
    EngineEvent,
    ToolCallApproved,
    ToolCallDenied,
    ToolCallFinished,
    ToolCallProposed,
    TurnEnded,
    TurnStarted,
)
from zengine_jupyter.testing import (
    RecordingApprovals,
    Reply,
    ScriptedToolCall,
    configured_provider,
)


def _on_disk(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text("utf-8").splitlines() if line]


def _record_of(event: EngineEvent, records: list[dict[str, Any]]) -> bool:
    """Whether ``records`` hold the record ``event`` announces."""

    def has(kind: str, **fields: Any) -> bool:
        return any(r["kind"] == kind and all(r.get(k) == v for k, v in fields.items())
                   for r in records)  # fmt: skip

    match event:
        case TurnStarted():
            return has("turn_start", turn_id=event.turn_id)
        case TurnEnded():
            return has("turn_end", turn_id=event.turn_id)
        case ToolCallProposed():
            return any(r["kind"] == "message" and event.call_id in json.dumps(r) for r in records)
        case ToolCallApproved() | ToolCallDenied():
            return has("approval", tool_call_id=event.call_id)
        case ToolCallFinished():
            return has("tool_result", tool_call_id=event.call_id)
        case CheckpointTaken():
            return has("checkpoint", checkpoint_id=event.checkpoint.id)
    raise AssertionError(f"no record expected for {event.kind}")


RECORDED = (TurnStarted, TurnEnded, ToolCallProposed, ToolCallApproved, ToolCallDenied,
            ToolCallFinished, CheckpointTaken)  # fmt: skip


async def test_each_record_is_on_disk_when_its_event_is_published(
    project: Path, zengine_home: Path
) -> None:
    async with configured_provider(zengine_home) as server:
        server.add(
            Reply(text=("Looking.",),
                  tool_calls=(ScriptedToolCall("Read", {"path": "pipeline.py"}),)),
            Reply(tool_calls=(
                ScriptedToolCall("Edit", {"path": "pipeline.py", "old_string": "RATE = 1",
                                          "new_string": "RATE = 2"}),
                ScriptedToolCall("Bash", {"command": "rm -rf build"}),
            )),
            Reply(text=("Done.",)),
        )  # fmt: skip
        approvals = RecordingApprovals({"Edit": "allow_once", "Bash": "deny"})
        session = await Session.open(SessionOptions(project=project, approvals=approvals))
        log = session.writer.log_path
        sub = session.subscribe()
        seen: list[tuple[str, bool]] = []
        offer = sub._offer  # what the bus calls, synchronously, as it publishes

        def offered(event: EngineEvent, session_id: str) -> None:
            if isinstance(event, RECORDED):
                seen.append((event.kind, _record_of(event, _on_disk(log))))
            offer(event, session_id)

        sub._offer = offered  # type: ignore[method-assign]
        outcome = await session.submit("Set RATE to 2 and clean up")
        await session.aclose()

    assert outcome.status == "completed", outcome.reason
    kinds = [kind for kind, _ in seen]
    for kind in (
        "turn_started",
        "tool_call_proposed",
        "tool_call_approved",
        "tool_call_denied",
        "tool_call_finished",
        "checkpoint_taken",
        "turn_ended",
    ):
        assert kind in kinds, kinds  # fmt: skip
    assert [kind for kind, on_disk in seen if not on_disk] == []
