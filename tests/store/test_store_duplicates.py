"""Issue 19.7: a line written twice is replayed once (usage counted once, a message shown once).

Every record has an id; reading a log keeps the first record with an id and reports any later
one as a ``duplicate`` line, and the replay fold drops a record whose id it has already seen.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zengine_jupyter.engine import build_request
from zengine_jupyter.protocol import (
    ApprovalRecord,
    CheckLogRecord,
    CheckpointRecord,
    CompactionRecord,
    LogRecord,
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
    UsageRecord,
)
from zengine_jupyter.store import Replayer, ResumeState, SessionStore, replay
from zengine_jupyter.testing.records import log_records
from zengine_jupyter.testing.verify import make_record


def _a_real_chat(store: SessionStore) -> bytes:
    """A chat with every record kind, written by the real writer; its log's bytes."""
    call = RecordedToolCall(id="call-1", name="Bash", input={"command": "ls"})
    first, second = TurnStartRecord(), TurnStartRecord()
    with store.create(project="/p", session_id="c1") as writer:
        for record in (
            TitleRecord(title="fix the build"),
            ModelChangeRecord(model="m1", provider="openai"),
            ModeChangeRecord(mode="default"),
            first,
            CheckpointRecord(checkpoint_id="cp1", turn_id=first.turn_id, commit="abc"),
            MessageRecord(role="user", text="hello"),
            MessageRecord(role="assistant", text="on it", tool_calls=(call,)),
            ApprovalRecord(tool_call_id="call-1", tool="Bash", decision="allow_once"),
            ToolResultRecord(tool_call_id="call-1", name="Bash", output="a.py"),
            UsageRecord(model="m1", input_tokens=100, output_tokens=20, cost_usd=0.25),
            UsageRecord(model="m1", input_tokens=7, output_tokens=3),  # unpriced
            CheckLogRecord(check=make_record("t", passed=True, fingerprint="f"), turn_id="x"),
            SubagentStartRecord(agent_id="a1", agent_type="explore"),
            SubagentEndRecord(agent_id="a1", status="completed", summary="found it"),
            QuestionRecord(question_id="q1", state="asked", text="which one?"),
            QuestionRecord(question_id="q1", state="answered", text="which one?"),
            PlanRecord(plan_id="p1", state="proposed", text="1. fix"),
            PlanRecord(plan_id="p1", state="approved", text="1. fix"),
            MessageRecord(role="assistant", text="done"),
            TurnEndRecord(turn_id=first.turn_id, status="completed"),
            CompactionRecord(summary="the build was fixed", tokens_before=1000),
            second,
            MessageRecord(role="user", text="and now?"),
            UsageRecord(model="m1", input_tokens=50, output_tokens=5, cost_usd=0.5),
            TurnEndRecord(turn_id=second.turn_id, status="interrupted"),
            RewindRecord(to_turn_id=second.turn_id, checkpoint_id="cp1"),
        ):
            writer.append(record)
    return (store.folder("c1") / "log.jsonl").read_bytes()


def _same_state(got: ResumeState, want: ResumeState) -> None:
    assert got.transcript == want.transcript
    assert got.working_set == want.working_set
    assert (got.cost_usd, got.unpriced_requests, got.tokens) == (
        want.cost_usd, want.unpriced_requests, want.tokens)  # fmt: skip
    assert (got.message_count, got.last_turn, got.title, got.model, got.mode) == (
        want.message_count, want.last_turn, want.title, want.model, want.mode)  # fmt: skip
    assert (got.records, got.ignored_rewinds, got.needs_repair) == (
        want.records, want.ignored_rewinds, want.needs_repair)  # fmt: skip
    assert _request(got) == _request(want)


def _request(state: ResumeState) -> list[tuple[object, ...]]:
    """The request the model would get, without the times of repaired (synthetic) results."""
    messages = build_request(state.working_set)
    results = [[r.model_dump(exclude={"ts"}) for r in m.tool_results] for m in messages]
    pairs = zip(messages, results, strict=True)
    return [(m.role, m.texts, m.thinking, m.tool_calls, r) for m, r in pairs]


def test_every_duplicated_line_of_a_real_log_is_replayed_once(tmp_path: Path) -> None:
    """Attack: a line written twice counts its usage twice and shows its message twice."""
    store = SessionStore(tmp_path / "sessions")
    log = _a_real_chat(store)
    lines = log.splitlines(keepends=True)
    kinds = {json.loads(line)["kind"] for line in lines}
    assert len(kinds) == 18, kinds  # every record kind is in the log
    clean = store.read("c1")
    assert clean.skipped == ()
    assert clean.state.cost_usd == 0.75
    assert clean.state.message_count == 3  # turn 2 was rewound
    for i, line in enumerate(lines):
        for where in ("next", "end"):  # written again at once, or after later lines
            copy = [*lines[: i + 1], line, *lines[i + 1 :]] if where == "next" else [*lines, line]
            at = i + 2 if where == "next" else len(lines) + 1
            folder = tmp_path / f"d{i}{where}"
            shutil.copytree(store.folder("c1"), folder / "c1")
            (folder / "c1" / "log.jsonl").write_bytes(b"".join(copy))
            dup = SessionStore(folder)
            snap = dup.read("c1")
            _same_state(snap.state, clean.state)
            assert snap.meta.cost_usd == clean.meta.cost_usd
            assert snap.meta.message_count == clean.meta.message_count
            (skip,) = snap.skipped
            assert (skip.line, skip.reason) == (at, "duplicate"), skip
            assert skip.detail == f"the same record id as line {i + 1}"
            with dup.open("c1") as writer:  # the writer's replay too
                _same_state(writer.state(), clean.state)
                assert [s.line for s in writer.report.skipped] == [at]


def test_the_fold_drops_a_record_fed_twice() -> None:
    """Records handed to replay directly (not read from a file) are de-duplicated too."""
    user = MessageRecord(role="user", text="hi")
    usage = UsageRecord(input_tokens=10, cost_usd=1.0)
    records: list[LogRecord] = [SessionRecord(), TurnStartRecord(), user, usage]
    want = replay(records)
    got = replay([*records, user, usage, records[1]])
    _same_state(got, want)
    assert got.duplicates == 3
    one_by_one = Replayer()
    for record in [*records, usage, user]:
        one_by_one.feed_all([record])
    _same_state(one_by_one.state(), want)
    batches = Replayer()
    batches.feed_all(records[:3])
    batches.feed_all([records[2], usage, usage])  # a repeat of an earlier batch, and within
    _same_state(batches.state(), want)
    assert batches.state().duplicates == 2


def test_a_repaired_tail_that_repeats_an_id_is_still_replayed_once(tmp_path: Path) -> None:
    """A scan hands its records' ids to the replay, which takes them as they are only while
    they match the records one for one. A tail completed on opening adds a record the scan's
    ids do not have: here it repeats an earlier line, and the fold still drops it."""
    store = SessionStore(tmp_path)
    usage = UsageRecord(input_tokens=10, cost_usd=1.0)
    with store.create(session_id="c") as writer:
        writer.append(TurnStartRecord())
        writer.append(usage)
    log = tmp_path / "c" / "log.jsonl"
    with log.open("ab") as f:
        f.write(_dump(usage).rstrip(b"\n"))  # the same record again, torn before its newline
    read = store.read("c")
    torn = len(_dump(usage)) - 1
    assert (read.state.records, read.state.cost_usd, read.partial_tail_bytes) == (3, 1.0, torn)
    with store.open("c") as writer:
        assert writer.report.tail.completed
        state = writer.state()
        assert (state.records, state.duplicates, state.cost_usd) == (3, 1, 1.0)
    again = store.read("c")  # the completed line is now a whole duplicate line: skipped
    assert (again.state.records, again.state.cost_usd) == (3, 1.0)
    assert [s.reason for s in again.skipped] == ["duplicate"]


def _dump(record: LogRecord) -> bytes:
    return type(record).__pydantic_serializer__.to_json(record) + b"\n"


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=log_records, data=st.data())
def test_duplicates_mixed_into_generated_logs_change_nothing(
    records: list[LogRecord], data: st.DataObject
) -> None:
    records = [SessionRecord(), *records]
    lines = [_dump(r) for r in records]
    mixed = list(lines)
    repeats = data.draw(st.lists(st.integers(0, len(lines) - 1), max_size=8))
    for original in repeats:  # each copy lands somewhere after its original
        after = mixed.index(lines[original])
        mixed.insert(data.draw(st.integers(after + 1, len(mixed))), lines[original])
    root = Path(tempfile.mkdtemp())
    try:
        for name, content in (("clean", lines), ("mixed", mixed)):
            (root / name).mkdir()
            (root / name / "log.jsonl").write_bytes(b"".join(content))
        store = SessionStore(root)
        clean, dup = store.read("clean"), store.read("mixed")
        _same_state(dup.state, clean.state)
        assert len(dup.skipped) == len(repeats)
        assert {s.reason for s in dup.skipped} <= {"duplicate"}
        assert dup.state.duplicates == 0  # the reader dropped them before the fold
        _same_state(replay([r for r in records for _ in (0, 1)]), clean.state)  # the fold alone
        with store.open("mixed") as writer:
            _same_state(writer.state(), clean.state)
    finally:
        shutil.rmtree(root)


def test_the_writer_folds_what_was_appended_whenever_its_state_is_read(tmp_path: Path) -> None:
    """The writer folds appends when its state is next read, in one batch: reads between
    appends, a record appended twice, and a rewind in a later batch all come out as a
    replay of the whole log does."""
    store = SessionStore(tmp_path)
    usage = UsageRecord(input_tokens=10, cost_usd=1.0)
    turn = TurnStartRecord()
    hi = MessageRecord(role="user", text="hi")
    with store.create(session_id="c") as writer:
        writer.append(turn)
        writer.append(hi)
        assert _said(writer.state()) == ["hi"]
        writer.append(usage)
        writer.append(usage)  # the same record twice: folded once
        writer.append(MessageRecord(role="assistant", text="hello"))
        state = writer.state()
        assert (state.cost_usd, state.duplicates) == (1.0, 1)
        assert _said(state) == ["hi", "hello"]
        assert writer.state().cost_usd == 1.0  # a second read folds nothing again
        writer.append(RewindRecord(to_turn_id=turn.turn_id))
        live = writer.state()
        assert _said(live) == []
    _same_state(store.read("c").state, live)


def _said(state: ResumeState) -> list[str]:
    return [r.text for r in state.transcript if isinstance(r, MessageRecord)]
