"""Acceptance 3: the request built from any record sequence is well-formed."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from zengine_jupyter.engine import (
    INTERRUPTED,
    MISSING_START,
    RequestMessage,
    build_request,
    check_request,
    resume_repairs,
)
from zengine_jupyter.protocol import (
    CompactionRecord,
    LogRecord,
    MessageRecord,
    RecordedToolCall,
    ToolResultRecord,
)
from zengine_jupyter.store import replay
from zengine_jupyter.testing.records import log_records


def _call(call_id: str) -> RecordedToolCall:
    return RecordedToolCall(id=call_id, name="Bash")


@settings(max_examples=400, deadline=None)
@given(records=log_records)
def test_any_record_sequence_gives_a_well_formed_request(records: list[LogRecord]) -> None:
    assert check_request(build_request(records)) == []


@settings(max_examples=200, deadline=None)
@given(records=log_records, cut=st.integers(0, 40))
def test_replayed_and_repaired_logs_give_well_formed_requests(
    records: list[LogRecord], cut: int
) -> None:
    # a log cut short anywhere (lost writes), replayed, then repaired as on resume
    state = replay(records[:cut])
    assert check_request(build_request(state.working_set)) == []
    repaired = replay([*records[:cut], *resume_repairs(state)])
    assert not repaired.needs_repair
    assert check_request(build_request(repaired.working_set)) == []


def test_check_request_catches_each_kind_of_problem() -> None:
    # the checker itself must be able to fail, or the property tests prove nothing
    call = _call("c1")
    result = ToolResultRecord(tool_call_id="c1")
    bad = {
        "first message": [RequestMessage("assistant", texts=("hi",))],
        "empty": [RequestMessage("user")],
        "both user": [RequestMessage("user", texts=("a",)), RequestMessage("user", texts=("b",))],
        "not answered": [
            RequestMessage("user", texts=("a",)),
            RequestMessage("assistant", tool_calls=(call,)),
        ],
        "answer no call": [RequestMessage("user", texts=("a",), tool_results=(result,))],
        "used twice": [
            RequestMessage("user", texts=("a",)),
            RequestMessage("assistant", tool_calls=(call, call)),
            RequestMessage("user", tool_results=(result, result)),
        ],
    }
    for expected, messages in bad.items():
        assert any(expected in p for p in check_request(messages)), expected


def test_lost_results_become_interrupted_and_orphans_are_dropped() -> None:
    records: list[LogRecord] = [
        MessageRecord(role="assistant", text="resuming", tool_calls=(_call("c1"), _call("c2"))),
        MessageRecord(role="user", text="are you there?"),
        ToolResultRecord(tool_call_id="c2", output="done"),  # late, after a user message
        ToolResultRecord(tool_call_id="zz", output="orphan"),
        MessageRecord(role="user", text="hello?"),
        CompactionRecord(summary=""),
    ]
    messages = build_request(records)
    assert [m.role for m in messages] == ["user", "assistant", "user"]
    assert messages[0].texts == (MISSING_START,)
    answers = {r.tool_call_id: r.output for r in messages[2].tool_results}
    assert answers == {"c1": INTERRUPTED, "c2": "done"}
    assert messages[2].texts == ("are you there?", "hello?")
    assert check_request(messages) == []
