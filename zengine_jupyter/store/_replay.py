"""Replay: fold a chat's records into the state it resumes from.

Replay restores state only; it never repeats a side effect (no command runs, no
file is touched). It works in two steps:

1. :meth:`Replayer.feed_all`, with records in log order (also used live by the writer,
   with what was appended since its state was last read): a record whose id was already
   fed (a line written twice) is dropped and counted; usage is summed into the cost
   *before* anything else, so money spent in turns a rewind later drops stays counted; a
   rewind cuts the surviving records back to the start of its turn.
2. :meth:`Replayer.state`: one pass over the surviving records gives the
   transcript, the model's working set (from the last compaction on), and what a
   crash may have left open: the last turn, unanswered tool calls, running
   subagents, open questions and plans.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from zengine_jupyter.protocol import (
    CompactionRecord,
    MessageRecord,
    ModeChangeRecord,
    ModelChangeRecord,
    PlanRecord,
    QuestionRecord,
    RecordedToolCall,
    RewindRecord,
    SessionRecord,
    SubagentEndRecord,
    SubagentStartRecord,
    TitleRecord,
    ToolResultRecord,
    TurnEndRecord,
    TurnStartRecord,
    TurnStatus,
    UsageRecord,
)
from zengine_jupyter.store._lines import gc_paused

if TYPE_CHECKING:
    from collections.abc import Collection, Sequence
    from datetime import datetime

    from zengine_jupyter.protocol import LogRecord

__all__ = ["LastTurn", "Replayer", "ResumeState", "TokenTotals", "WorkingItem", "replay"]

WorkingItem = MessageRecord | ToolResultRecord | CompactionRecord
"""What the model sees: messages and tool results, after the last compaction's summary."""


@dataclass(frozen=True)
class TokenTotals:
    """Tokens used so far, by type (every usage record, rewound turns included)."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0


@dataclass(frozen=True)
class LastTurn:
    """The last surviving turn and how it ended (``open``: it never ended)."""

    turn_id: str
    status: TurnStatus | Literal["open"]


@dataclass(frozen=True)
class ResumeState:
    """A chat as replay leaves it."""

    transcript: tuple[LogRecord, ...]
    """The surviving records in order (rewound turns removed; usage not included)."""
    working_set: tuple[WorkingItem, ...]
    cost_usd: float
    """Sum of every priced usage record, including turns a rewind dropped."""
    unpriced_requests: int
    tokens: TokenTotals
    last_turn: LastTurn | None
    unanswered_tool_calls: tuple[RecordedToolCall, ...]
    running_subagents: tuple[str, ...]
    open_questions: tuple[str, ...]
    open_plans: tuple[str, ...]
    title: str | None
    model: str | None
    mode: str | None
    project: str | None
    imported_from: str | None
    created: datetime | None
    updated: datetime | None
    records: int
    """How many records were folded (all kinds)."""
    ignored_rewinds: int = 0
    """Rewinds naming a turn that was not there (already dropped, or lost): no effect."""
    message_count: int = field(default=0)
    duplicates: int = 0
    """Records dropped because an earlier record had the same id (not in ``records``)."""

    @property
    def needs_repair(self) -> bool:
        """Whether resume must close something a crash left open."""
        return bool(
            (self.last_turn is not None and self.last_turn.status == "open")
            or self.unanswered_tool_calls
            or self.running_subagents
            or self.open_questions
            or self.open_plans
        )


class Replayer:
    """The incremental fold behind :func:`replay`; feed records in log order."""

    def __init__(self) -> None:
        self._surviving: list[LogRecord] = []
        self._turn_at: dict[str, int] = {}
        self._cost = 0.0
        self._unpriced = 0
        self._tokens = [0, 0, 0, 0]
        self._title: str | None = None
        self._model: str | None = None
        self._mode: str | None = None
        self._project: str | None = None
        self._imported_from: str | None = None
        self._first: LogRecord | None = None
        self._last: LogRecord | None = None
        self._records = 0
        self._ignored_rewinds = 0
        self._ids: set[str] = set()
        self._duplicates = 0

    def feed_all(self, records: Sequence[LogRecord], ids: Collection[str] = ()) -> None:
        """Fold records in log order (the hot loop of replay: plain messages go straight in).
        ``ids``: the records' ids, each once, when the caller has them (a log scan does)."""
        known = self._ids
        if not known and ids and len(ids) == len(records):  # a first feed of a scanned log
            known.update(ids)
        else:
            batch = {r.id for r in records}
            if len(batch) == len(records) and known.isdisjoint(batch):
                known |= batch
            else:
                records = self._unseen(records)
        if not records:
            return
        if self._first is None:
            self._first = records[0]
        self._last = records[-1]
        self._records += len(records)
        keep = self._surviving.append
        for record in records:
            cls = type(record)
            if cls is MessageRecord or cls is ToolResultRecord:
                keep(record)
            elif isinstance(record, UsageRecord):
                self._usage(record)
            else:
                self._other(record)
                keep(record)

    def _unseen(self, records: Sequence[LogRecord]) -> list[LogRecord]:
        """``records`` minus those whose id was fed before them (rare: a duplicated line)."""
        ids = self._ids
        unseen: list[LogRecord] = []
        for record in records:
            if record.id in ids:
                self._duplicates += 1
            else:
                ids.add(record.id)
                unseen.append(record)
        return unseen

    def _usage(self, record: UsageRecord) -> None:
        if record.cost_usd is None:
            self._unpriced += 1
        else:
            self._cost += record.cost_usd
        tokens = self._tokens
        tokens[0] += record.input_tokens
        tokens[1] += record.output_tokens
        tokens[2] += record.cache_read_tokens
        tokens[3] += record.cache_write_tokens

    def _other(self, record: LogRecord) -> None:
        if isinstance(record, TurnStartRecord):
            self._turn_at[record.turn_id] = len(self._surviving)
        elif isinstance(record, RewindRecord):
            self._rewind(record.to_turn_id)
        elif isinstance(record, TitleRecord):
            self._title = record.title
        elif isinstance(record, ModelChangeRecord):
            self._model = record.model
        elif isinstance(record, ModeChangeRecord):
            self._mode = record.mode
        elif isinstance(record, SessionRecord):
            self._project = record.project
            self._imported_from = record.imported_from

    def _rewind(self, turn_id: str) -> None:
        at = self._turn_at.get(turn_id)
        if at is None:
            self._ignored_rewinds += 1
            return
        del self._surviving[at:]
        self._turn_at = {t: i for t, i in self._turn_at.items() if i < at}

    def state(self) -> ResumeState:
        """The resume state of everything fed so far."""
        working: list[WorkingItem] = []
        calls: dict[str, RecordedToolCall] = {}
        answered: set[str] = set()
        agents: dict[str, None] = {}
        questions: dict[str, None] = {}
        plans: dict[str, None] = {}
        last: LastTurn | None = None
        messages = 0
        for record in self._surviving:  # isinstance narrows in C; typing.cast is a Python call
            if isinstance(record, MessageRecord):
                messages += 1
                working.append(record)
                for call in record.tool_calls:
                    calls.setdefault(call.id, call)
            elif isinstance(record, ToolResultRecord):
                working.append(record)
                answered.add(record.tool_call_id)
            elif isinstance(record, CompactionRecord):
                working = [record]
            elif isinstance(record, TurnStartRecord):
                last = LastTurn(record.turn_id, "open")
            elif isinstance(record, TurnEndRecord):
                if last is not None and last.turn_id == record.turn_id:
                    last = LastTurn(record.turn_id, record.status)
            elif isinstance(record, SubagentStartRecord):
                agents[record.agent_id] = None
            elif isinstance(record, SubagentEndRecord):
                agents.pop(record.agent_id, None)
            elif isinstance(record, QuestionRecord):
                if record.state == "asked":
                    questions[record.question_id] = None
                else:
                    questions.pop(record.question_id, None)
            elif isinstance(record, PlanRecord):
                if record.state == "proposed":
                    plans[record.plan_id] = None
                else:
                    plans.pop(record.plan_id, None)
        return ResumeState(
            transcript=tuple(self._surviving),
            working_set=tuple(working),
            cost_usd=self._cost,
            unpriced_requests=self._unpriced,
            tokens=TokenTotals(*self._tokens),
            last_turn=last,
            unanswered_tool_calls=tuple(c for i, c in calls.items() if i not in answered),
            running_subagents=tuple(agents),
            open_questions=tuple(questions),
            open_plans=tuple(plans),
            title=self._title,
            model=self._model,
            mode=self._mode,
            project=self._project,
            imported_from=self._imported_from,
            created=None if self._first is None else self._first.ts,
            updated=None if self._last is None else self._last.ts,
            records=self._records,
            ignored_rewinds=self._ignored_rewinds,
            message_count=messages,
            duplicates=self._duplicates,
        )


def replay(records: list[LogRecord], ids: Collection[str] = ()) -> ResumeState:
    """Fold ``records`` (in log order) into a :class:`ResumeState`; ``ids``: as
    :meth:`Replayer.feed_all` takes them."""
    with gc_paused():
        replayer = Replayer()
        replayer.feed_all(records, ids)
        return replayer.state()
