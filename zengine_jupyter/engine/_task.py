"""Task: a subagent with its own transcript (``agents/<id>.jsonl``) and the parent's gate.

Kinds (``subagent_type``): ``general`` runs on ``model.main``; ``explore`` (find and read) and
``verify`` (check work) run on ``model.fast`` (spec, Providers 5), which defaults to main.
The subagent shares the parent's permission gate, so it never runs in a looser mode than the
agent that started it; it cannot start subagents itself. Its spend is journaled in the main
log (usage records carry its ``agent_id``), so the chat's cost includes it.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from zengine_jupyter.engine._turn import TurnOutcome, TurnRunner
from zengine_jupyter.engine.tools import Tool, ToolContext, ToolInput, ToolOutput
from zengine_jupyter.protocol import (
    MessageRecord,
    SubagentEndRecord,
    SubagentStartRecord,
    TextStreamed,
    ThinkingStreamed,
    ToolError,
    ToolResultRecord,
    TurnEnded,
    TurnStarted,
    UsageRecord,
    new_id,
)

if TYPE_CHECKING:
    from zengine_jupyter.engine._journal import Journal
    from zengine_jupyter.engine._session import Session
    from zengine_jupyter.llm import Role
    from zengine_jupyter.protocol import EngineEvent, LogRecord, TurnStatus
    from zengine_jupyter.store import WorkingItem

__all__ = ["AgentJournal", "TaskTool"]

_QUIET = (TextStreamed, ThinkingStreamed, TurnStarted, TurnEnded)


class AgentJournal:
    """A subagent's journal: its records go to ``agents/<id>.jsonl``, its usage to the main
    log, and the events a user must see (approvals, tool cards) to the chat's bus."""

    def __init__(self, parent: Journal, agent_id: str) -> None:
        self.parent = parent
        self.agent_id = agent_id
        self.records: list[LogRecord] = []

    def record(self, record: LogRecord, event: EngineEvent | None = None) -> None:
        if isinstance(record, UsageRecord):
            self.parent.record(record.model_copy(update={"agent_id": self.agent_id}))
        else:
            self.parent.writer.append_agent(self.agent_id, record)
            self.records.append(record)
        if event is not None:
            self.publish(event)

    def publish(self, event: EngineEvent) -> None:
        if not isinstance(event, _QUIET):
            self.parent.publish(event)

    def working_set(self) -> tuple[WorkingItem, ...]:
        return tuple(r for r in self.records if isinstance(r, MessageRecord | ToolResultRecord))

    def turn_ended(self) -> None:
        return None


class TaskInput(ToolInput):
    description: str = Field(max_length=120, description="A few words: what the subagent does.")
    prompt: str = Field(min_length=1, description="The whole task, with everything it needs.")
    subagent_type: Literal["general", "explore", "verify"] = Field(
        default="general",
        description="general: any task; explore: find and read code to answer a question; "
        "verify: check finished work (run the tests, review the change). explore and verify "
        "run on a faster model.",
    )


class TaskTool(Tool[TaskInput]):
    name = "Task"
    kind = "other"
    description = (
        "Hand a self-contained task to a subagent with a fresh context (e.g. search a big "
        "codebase, investigate a failure). It has your tools and permissions (not more) and "
        "returns its final answer."
    )
    Input = TaskInput

    def __init__(self, session: Session) -> None:
        self._session = weakref.ref(session)

    async def run(self, args: TaskInput, ctx: ToolContext) -> ToolOutput:
        session = self._session()
        if session is None:
            raise ToolError("the chat that owned this subagent is closed")
        agent_id = new_id()
        session.journal.record(
            SubagentStartRecord(agent_id=agent_id, agent_type=args.subagent_type,
                                description=args.description)
        )  # fmt: skip
        journal = AgentJournal(session.journal, agent_id)
        tools = {name: t for name, t in session.tools.items() if name != self.name}
        env = session.call_env(new_id(), journal=journal, tools=tools, ctx=ctx)

        def prepare() -> tuple[str, list[Any]]:
            system, specs = session.prepare_request()
            return system, [s for s in specs if s.name != self.name]

        role: Role = "main" if args.subagent_type == "general" else "fast"
        runner = TurnRunner(journal=journal, client=session.roles.client(role), env=env,
                            prepare=prepare, meter=session.meter)  # fmt: skip
        outcome: TurnOutcome | None = None
        try:
            outcome = await runner.run(args.prompt)
        finally:
            status: TurnStatus = outcome.status if outcome is not None else "interrupted"
            summary = outcome.text[:500] if outcome is not None else ""
            session.journal.record(
                SubagentEndRecord(agent_id=agent_id, status=status, summary=summary)
            )
        if outcome.status != "completed":
            return ToolOutput(
                f"the subagent stopped ({outcome.status}): {outcome.reason}", is_error=True
            )
        return ToolOutput(outcome.text or "(the subagent gave no answer)")
