"""Resume repair: close what a crash or a kill left open, each repair an appended record.

On resume the engine calls :func:`repair_on_resume` on the freshly opened chat. In
order, it appends:

1. an ``"interrupted"`` error result for every tool call that has none;
2. a ``failed`` end for every subagent that was still running;
3. a ``dismissed`` state for every open question and every proposed plan;
4. an ``interrupted`` end for the last turn if it never ended.

Nothing is edited in place and no side effect is repeated. Running it again
appends nothing (the state it leaves needs no repair).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zengine_jupyter.engine._wellformed import INTERRUPTED
from zengine_jupyter.protocol import (
    PlanRecord,
    QuestionRecord,
    SubagentEndRecord,
    ToolResultRecord,
    TurnEndRecord,
)

if TYPE_CHECKING:
    from zengine_jupyter.protocol import LogRecord
    from zengine_jupyter.store import ResumeState, SessionWriter

__all__ = ["RESUME_REASON", "repair_on_resume", "resume_repairs"]

RESUME_REASON = "the chat was closed or crashed before this finished"


def resume_repairs(state: ResumeState) -> list[LogRecord]:
    """The records that close everything ``state`` left open (empty: nothing to do)."""
    repairs: list[LogRecord] = [
        ToolResultRecord(
            tool_call_id=call.id, name=call.name, output=INTERRUPTED, is_error=True, repair=True
        )
        for call in state.unanswered_tool_calls
    ]
    repairs += [
        SubagentEndRecord(agent_id=agent, status="failed", summary=RESUME_REASON, repair=True)
        for agent in state.running_subagents
    ]
    repairs += [
        QuestionRecord(question_id=q, state="dismissed", repair=True) for q in state.open_questions
    ]
    repairs += [PlanRecord(plan_id=p, state="dismissed", repair=True) for p in state.open_plans]
    last = state.last_turn
    if last is not None and last.status == "open":
        repairs.append(
            TurnEndRecord(
                turn_id=last.turn_id, status="interrupted", reason=RESUME_REASON, repair=True
            )
        )
    return repairs


def repair_on_resume(writer: SessionWriter) -> list[LogRecord]:
    """Append the repairs the chat needs (each flushed before the next); what was appended."""
    repairs = resume_repairs(writer.state())
    for record in repairs:
        writer.append(record)
    if repairs:
        writer.write_meta()
    return repairs
