"""Replay, resume repair and acceptance 4 (cost survives rewinds)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hypothesis import given, settings

from zengine_jupyter.engine import RESUME_REASON, repair_on_resume
from zengine_jupyter.protocol import (
    CompactionRecord,
    LogRecord,
    MessageRecord,
    PlanRecord,
    QuestionRecord,
    RecordedToolCall,
    RewindRecord,
    SubagentEndRecord,
    SubagentStartRecord,
    ToolResultRecord,
    TurnEndRecord,
    TurnStartRecord,
    UsageRecord,
)
from zengine_jupyter.store import SessionStore, replay
from zengine_jupyter.testing.records import log_records

if TYPE_CHECKING:
    from pathlib import Path


def _turn(n: int, cost: float | None) -> list[LogRecord]:
    return [
        TurnStartRecord(turn_id=f"t{n}"),
        MessageRecord(role="user", text=f"question {n}"),
        MessageRecord(role="assistant", text=f"answer {n}"),
        UsageRecord(input_tokens=100, output_tokens=10, cache_read_tokens=5, cost_usd=cost),
        TurnEndRecord(turn_id=f"t{n}", status="completed"),
    ]


def test_cost_includes_turns_a_rewind_dropped(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    records = [*_turn(1, 0.10), *_turn(2, 0.25), *_turn(3, None)]
    records += [RewindRecord(to_turn_id="t2"), *_turn(4, 0.5), RewindRecord(to_turn_id="t1")]
    records += [*_turn(5, 0.125)]
    with store.create(session_id="c1") as writer:
        for record in records:
            writer.append(record)
        live = writer.state()
    state = store.read("c1").state
    spent = [r.cost_usd for r in records if isinstance(r, UsageRecord) and r.cost_usd is not None]
    assert state.cost_usd == sum(spent) == live.cost_usd
    assert state.unpriced_requests == 1
    assert state.tokens.input == 500
    assert state.tokens.cache_read == 25
    # only turn 5 survives; the rewinds themselves stay in the transcript
    texts = [r.text for r in state.transcript if isinstance(r, MessageRecord)]
    assert texts == ["question 5", "answer 5"]
    assert [r.text for r in state.working_set if isinstance(r, MessageRecord)] == texts
    assert store.read("c1").meta.cost_usd == sum(spent)


@settings(max_examples=200, deadline=None)
@given(records=log_records)
def test_replayed_cost_is_the_sum_of_every_usage_record(records: list[LogRecord]) -> None:
    spent = [r.cost_usd for r in records if isinstance(r, UsageRecord) and r.cost_usd is not None]
    assert replay(records).cost_usd == sum(spent)


def test_rewind_to_a_missing_turn_changes_nothing_but_is_counted() -> None:
    state = replay([*_turn(1, 0.1), RewindRecord(to_turn_id="nope")])
    assert state.ignored_rewinds == 1
    assert state.message_count == 2


def test_working_set_starts_at_the_last_compaction() -> None:
    summary = CompactionRecord(summary="we fixed foo")
    state = replay([*_turn(1, 0.1), summary, *_turn(2, 0.1)])
    assert state.working_set[0] == summary
    assert [r.text for r in state.working_set[1:] if isinstance(r, MessageRecord)] == [
        "question 2",
        "answer 2",
    ]
    assert state.message_count == 4  # the transcript still shows everything


def test_resume_closes_everything_left_open_with_appended_records(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    call = RecordedToolCall(id="c1", name="Bash", input={"command": "make"})
    with store.create(session_id="c1") as writer:
        for record in [
            *_turn(1, 0.1),
            TurnStartRecord(turn_id="t2"),
            MessageRecord(role="user", text="build it"),
            QuestionRecord(question_id="q1", state="asked", text="which target?"),
            PlanRecord(plan_id="p1", state="proposed", text="1. build"),
            SubagentStartRecord(agent_id="a1"),
            MessageRecord(role="assistant", text="", tool_calls=(call,)),
        ]:
            writer.append(record)
    log = tmp_path / "c1" / "log.jsonl"
    before = log.read_bytes()
    with store.open("c1") as writer:
        state = writer.state()
        assert state.needs_repair
        repairs = repair_on_resume(writer)
        assert [type(r) for r in repairs] == [
            ToolResultRecord,
            SubagentEndRecord,
            QuestionRecord,
            PlanRecord,
            TurnEndRecord,
        ]
        assert all(getattr(r, "repair", False) for r in repairs)
        assert repair_on_resume(writer) == []  # nothing left to repair
    after = store.read("c1").state
    assert not after.needs_repair
    assert after.last_turn is not None
    assert after.last_turn.status == "interrupted"
    end = after.transcript[-1]
    assert isinstance(end, TurnEndRecord)
    assert end.reason == RESUME_REASON
    result = next(r for r in after.transcript if isinstance(r, ToolResultRecord))
    assert (result.output, result.is_error) == ("interrupted", True)
    # repairs are appended: the old bytes are untouched
    assert log.read_bytes().startswith(before)
