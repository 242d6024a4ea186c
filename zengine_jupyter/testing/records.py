"""Hypothesis strategies for chat log records (needs the ``test`` extra).

Ids and turn ids come from small pools on purpose, so generated logs hold the messy
cases a crash leaves: duplicated tool call ids, results without calls, calls without
results, turn ends without starts, rewinds to turns that are gone.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from zengine_jupyter.protocol._records import (
    ApprovalRecord,
    CheckLogRecord,
    CheckpointRecord,
    CompactionRecord,
    MessageRecord,
    ModeChangeRecord,
    ModelChangeRecord,
    PlanRecord,
    QuestionRecord,
    RecordedToolCall,
    RewindRecord,
    SubagentEndRecord,
    SubagentStartRecord,
    ThinkingBlock,
    TitleRecord,
    ToolResultRecord,
    TurnEndRecord,
    TurnStartRecord,
    UsageRecord,
    VerificationRecord,
)
from zengine_jupyter.testing.verify import make_record

__all__ = ["call_ids", "log_records", "record", "turn_ids"]

call_ids = st.sampled_from([f"call-{i}" for i in range(6)])
turn_ids = st.sampled_from([f"turn-{i}" for i in range(4)])
_texts = st.text(max_size=24)
_small = st.sampled_from(["a", "b", "c"])

_call = st.builds(
    RecordedToolCall,
    id=call_ids,
    name=st.sampled_from(["Bash", "Read", "Edit"]),
    input=st.dictionaries(st.text(max_size=4), st.integers() | st.text(max_size=8), max_size=2),
)
_message = st.builds(
    MessageRecord,
    role=st.sampled_from(["user", "assistant"]),
    text=_texts | st.just("") | st.just("  "),
    thinking=st.lists(st.builds(ThinkingBlock, text=_texts), max_size=1).map(tuple),
    tool_calls=st.lists(_call, max_size=3).map(tuple),
)
_usage = st.builds(
    UsageRecord,
    model=_small,
    input_tokens=st.integers(0, 10**6),
    output_tokens=st.integers(0, 10**5),
    cache_read_tokens=st.integers(0, 10**6),
    cache_write_tokens=st.integers(0, 10**5),
    cost_usd=st.none() | st.floats(0, 5, allow_nan=False, allow_infinity=False),
)

record: st.SearchStrategy[Any] = st.one_of(
    _message,
    _message,
    st.builds(ToolResultRecord, tool_call_id=call_ids, output=_texts, is_error=st.booleans()),
    st.builds(TurnStartRecord, turn_id=turn_ids),
    st.builds(
        TurnEndRecord,
        turn_id=turn_ids,
        status=st.sampled_from(["completed", "interrupted", "failed"]),
    ),
    _usage,
    st.builds(RewindRecord, to_turn_id=turn_ids),
    st.builds(CompactionRecord, summary=_texts),
    st.builds(SubagentStartRecord, agent_id=_small),
    st.builds(SubagentEndRecord, agent_id=_small, status=st.sampled_from(["completed", "failed"])),
    st.builds(
        QuestionRecord,
        question_id=_small,
        state=st.sampled_from(["asked", "answered", "dismissed"]),
    ),
    st.builds(
        PlanRecord, plan_id=_small, state=st.sampled_from(["proposed", "approved", "rejected"])
    ),
    st.builds(
        ApprovalRecord,
        tool_call_id=call_ids,
        tool=_small,
        decision=st.sampled_from(["allow_once", "deny"]),
    ),
    st.builds(
        CheckLogRecord,
        check=st.builds(
            lambda check_id, passed: make_record(check_id, passed=passed, fingerprint="f"),
            _small,
            st.booleans(),
        ),
    ),
    st.builds(
        VerificationRecord,
        badge=st.sampled_from(["verified", "failed", "unverified", "not_applicable"]),
        reason=_small,
    ),
    st.builds(CheckpointRecord, checkpoint_id=_small, turn_id=turn_ids),
    st.builds(ModeChangeRecord, mode=_small),
    st.builds(ModelChangeRecord, model=_small),
    st.builds(TitleRecord, title=_texts),
)
"""Any one record of any kind."""

log_records = st.lists(record, max_size=40)
"""A record sequence in no particular order: what a damaged or crashed log can hold."""
