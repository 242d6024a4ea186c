"""Context and compaction against the local provider server (issue 21.3, acceptance 2).

The fake provider has a context window (it refuses a longer request with the real "too long"
400 and reports its own token count as usage), the catalog knows the same window through the
user's ``models.json``, and a scripted long session crosses ``compact_threshold``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zengine_jupyter.engine import (
    COMPACT_SYSTEM,
    LATEST_HEADER,
    SUMMARY_HEADER,
    Session,
    SessionOptions,
    Subscription,
    estimate_tokens,
    rewind,
)
from zengine_jupyter.engine._wellformed import request_messages
from zengine_jupyter.protocol import (
    CompactionRecord,
    EngineError,
    MessageRecord,
    ModelRequest,
    Notice,
    TurnStartRecord,
    UsageRecord,
)
from zengine_jupyter.store import SessionStore
from zengine_jupyter.testing import (
    DEFAULT_MODEL,
    ProviderServer,
    Reply,
    ScriptedToolCall,
    configured_provider,
    write_provider_settings,
)

WINDOW = 7_600
"""Turn 4's request is ~5,900 tokens (below 0.85 x WINDOW = 6,460), turn 5's ~6,800."""
FAST = "claude-haiku-4-5"
SUMMARY = "The user sent long notes about pipeline stages one to four; nothing was changed yet."


def _window(home: Path, model: str = DEFAULT_MODEL, window: int = WINDOW) -> None:
    (home / "models.json").write_text(json.dumps({model: {"limit": {"context": window}}}))


def _prompt(n: int) -> str:
    return f"note {n}: " + f"stage {n} reads the input and writes the report. " * 40


def _answer(n: int) -> Reply:
    return Reply.answer(f"Noted {n}. " + "The stage is clear and needs no change. " * 45)


def _text(message: dict[str, object]) -> str:
    content = message["content"]
    if isinstance(content, str):
        return content
    assert isinstance(content, list)
    return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))


def _fake_tokens(body: bytes) -> int:
    return -(-len(body) // 4)


async def _long_session(
    home: Path, project: Path, server: ProviderServer
) -> tuple[Session, Subscription]:
    """Five turns; the fifth crosses 0.85 x WINDOW and is compacted before its request."""
    write_provider_settings(home, server.base_url, f'fast = "{FAST}"\n')
    _window(home)
    server.context_window = WINDOW
    session = await Session.open(SessionOptions(project=project))
    for n in range(1, 5):
        server.add(_answer(n))
        outcome = await session.submit(_prompt(n))
        assert outcome.status == "completed", outcome.reason
    assert not [r for r in session.writer.state().transcript if isinstance(r, CompactionRecord)]
    server.add(Reply.answer(SUMMARY), _answer(5))
    events = session.subscribe()
    outcome = await session.submit(_prompt(5))
    assert outcome.status == "completed", outcome.reason
    return session, events


async def test_a_long_session_is_compacted_at_the_threshold_and_goes_on_from_the_summary(
    project: Path, zengine_home: Path
) -> None:
    async with ProviderServer() as server:
        session, events = await _long_session(zengine_home, project, server)
        server.add(_answer(6))
        assert (await session.submit(_prompt(6))).status == "completed"
        window_left = session.gauge.window
        await session.aclose()
        notices = [e async for e in events if isinstance(e, Notice)]

    assert window_left == WINDOW  # from models.json through the catalog
    assert [r.rejected for r in server.requests] == [None] * len(server.requests)
    assert all(_fake_tokens(r.body) <= WINDOW for r in server.requests)
    main = [r for r in server.requests if r.json["model"] == DEFAULT_MODEL]
    summaries = [r for r in server.requests if r.json["model"] == FAST]
    assert len(main) == 6
    assert len(summaries) == 1
    summary_request = summaries[0].json
    assert summary_request["system"][0]["text"] == COMPACT_SYSTEM
    transcript = _text(summary_request["messages"][0])
    assert _prompt(1).strip() in transcript
    assert "Noted 4." in transcript

    # the request of turn 5 (and 6) starts from the summary, with turn 5's request verbatim
    for request in main[4:]:
        first = _text(request.json["messages"][0])
        assert first.startswith(SUMMARY_HEADER)
        assert SUMMARY in first
        assert LATEST_HEADER in first
        assert _prompt(5) in first
        assert not any(_prompt(1)[:40] in _text(m) for m in request.json["messages"])
    assert _fake_tokens(main[3].body) < int(WINDOW * 0.85) <= _fake_tokens(main[3].body) + 1_100
    assert _fake_tokens(main[4].body) < _fake_tokens(main[1].body)  # smaller than turn 2's
    assert "Noted 5." in _text(main[5].json["messages"][1])

    records = SessionStore().read(session.id).state.transcript
    kinds = [type(r).__name__ for r in records]
    compaction = next(r for r in records if isinstance(r, CompactionRecord))
    fifth = [r for r in records if isinstance(r, TurnStartRecord)][4]
    assert records.index(fifth) < records.index(compaction)  # written inside turn 5
    assert kinds.count("CompactionRecord") == 1
    assert compaction.tokens_before is not None
    assert compaction.tokens_before >= WINDOW * 0.85
    log = (SessionStore().read(session.id).folder / "log.jsonl").read_text().splitlines()
    usage = [UsageRecord.model_validate_json(line) for line in log if '"kind":"usage"' in line]
    assert FAST in [u.model for u in usage]  # the summary's cost is the chat's
    assert any(n.topic == "context" and "compacted" in n.text for n in notices)


async def test_the_compacted_chat_resumes_from_the_summary_after_the_store_is_reopened(
    project: Path, zengine_home: Path
) -> None:
    async with ProviderServer() as server:
        first, _ = await _long_session(zengine_home, project, server)
        await first.aclose()
        session = await Session.open(SessionOptions(project=project, session_id=first.id))
        server.add(_answer(7))
        assert (await session.submit("and one more thing")).status == "completed"
        await session.aclose()
    messages = server.requests[-1].json["messages"]
    assert _text(messages[0]).startswith(SUMMARY_HEADER)
    assert "and one more thing" in _text(messages[-1])
    assert not any(_prompt(2)[:40] in _text(m) for m in messages)


async def test_rewinding_to_before_the_compaction_restores_the_full_history(
    project: Path, zengine_home: Path
) -> None:
    async with ProviderServer() as server:
        session, _ = await _long_session(zengine_home, project, server)
        server.add(_answer(6))
        await session.submit(_prompt(6))
        await rewind(session, "6", code=False)  # after the compaction: it stays
        working = session.journal.working_set()
        assert isinstance(working[0], CompactionRecord)
        await rewind(session, "5", code=False)  # the turn that compacted: full history
        working = session.journal.working_set()
        await session.aclose()
    assert not [w for w in working if isinstance(w, CompactionRecord)]
    users = [w.text for w in working if isinstance(w, MessageRecord) and w.role == "user"]
    assert users == [_prompt(n) for n in range(1, 5)]
    texts = [str(m.content) for m in request_messages(working)]
    assert _prompt(1)[:40] in texts[0]


async def test_slash_compact_summarises_on_demand_with_the_fast_model(
    project: Path, zengine_home: Path
) -> None:
    async with configured_provider(zengine_home, f'fast = "{FAST}"\n') as server:
        session = await Session.open(SessionOptions(project=project))
        server.add(Reply.answer("Hello."))
        await session.submit("Say hello")
        server.add(Reply.answer("You said hello."), Reply.answer("Still here."))
        compacted = await session.submit("/compact")
        await session.submit("what now?")
        nothing = await Session.open(SessionOptions(project=project))
        empty = await nothing.submit("/compact")
        await nothing.aclose()
        await session.aclose()
    assert compacted.text.startswith("compacted: about")
    assert empty.text == "not compacted: there is nothing to compact yet"
    assert [r.json["model"] for r in server.requests] == [DEFAULT_MODEL, FAST, DEFAULT_MODEL]
    first = _text(server.requests[2].json["messages"][0])
    assert first.startswith(SUMMARY_HEADER)
    assert "You said hello." in first
    assert LATEST_HEADER not in first  # between turns: no running request to keep
    assert "what now?" in first  # the next turn's message follows in the same user message


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
async def test_a_context_length_error_compacts_once_and_retries(
    project: Path, zengine_home: Path, kind: str
) -> None:
    async with ProviderServer() as server:
        url = server.base_url if kind == "anthropic" else server.openai_url
        write_provider_settings(zengine_home, url, kind=kind)
        session = await Session.open(SessionOptions(project=project))
        server.add(Reply.answer("First answer."))
        await session.submit("first question")
        server.add(Reply.context_overflow(), Reply.answer("Summary of the first question."),
                   Reply.answer("Answered after compacting."))  # fmt: skip
        outcome = await session.submit("second question")
        await session.aclose()
    assert outcome.status == "completed", outcome.reason
    assert outcome.text == "Answered after compacting."
    assert len(server.requests) == 4
    retried = server.requests[3].json["messages"]
    system_first = 1 if kind == "openai" else 0  # OpenAI's system prompt is a message
    assert SUMMARY_HEADER in _text(retried[system_first])
    assert "second question" in _text(retried[system_first])
    records = SessionStore().read(session.id).state.transcript
    assert len([r for r in records if isinstance(r, CompactionRecord)]) == 1


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
async def test_a_second_context_length_error_in_a_row_fails_the_turn_clearly(
    project: Path, zengine_home: Path, kind: str
) -> None:
    async with ProviderServer() as server:
        url = server.base_url if kind == "anthropic" else server.openai_url
        write_provider_settings(zengine_home, url, kind=kind)
        session = await Session.open(SessionOptions(project=project))
        server.add(Reply.answer("First answer."))
        await session.submit("first question")
        events = session.subscribe()
        server.add(Reply.context_overflow(), Reply.answer("A summary."),
                   Reply.context_overflow())  # fmt: skip
        outcome = await session.submit("second question")
        await session.aclose()
        errors = [e async for e in events if isinstance(e, EngineError)]
    assert outcome.status == "failed"
    assert outcome.reason is not None
    assert outcome.reason.startswith(
        "the conversation is too long for the model's context window (even after compacting it)"
    )
    assert len(server.requests) == 4  # no third compaction, no endless loop
    assert len(errors) == 1
    assert errors[0].hint is not None
    assert "/rewind" in errors[0].hint


async def test_auto_compact_off_sends_the_long_request_as_it_is(
    project: Path, zengine_home: Path
) -> None:
    async with ProviderServer() as server:
        write_provider_settings(zengine_home, server.base_url, "[context]\nauto_compact = false\n")
        _window(zengine_home, window=3_000)
        session = await Session.open(SessionOptions(project=project))
        server.add(_answer(1), _answer(2))
        await session.submit(_prompt(1))
        await session.submit(_prompt(2))
        await session.aclose()
    assert len(server.requests) == 2  # no summary request
    assert not [
        r
        for r in SessionStore().read(session.id).state.transcript
        if isinstance(r, CompactionRecord)
    ]


async def test_a_failing_summary_is_tried_once_per_turn_and_the_turn_goes_on(
    project: Path, zengine_home: Path
) -> None:
    async with configured_provider(zengine_home, f'fast = "{FAST}"\n') as server:
        _window(zengine_home, window=3_200)
        session = await Session.open(SessionOptions(project=project))
        events = session.subscribe()
        read = ScriptedToolCall("Read", {"path": "pipeline.py"})
        long_text = ("The file is short. " * 160,)
        server.add(Reply(text=long_text, tool_calls=(read,)), Reply.fault(400),
                   Reply(tool_calls=(read,)), Reply.answer("Done."))  # fmt: skip
        outcome = await session.submit("Look at the pipeline " * 40)
        await session.aclose()
        notices = [e async for e in events if isinstance(e, Notice) and e.topic == "context"]
    assert outcome.status == "completed", outcome.reason
    models = [r.json["model"] for r in server.requests]
    assert models == [DEFAULT_MODEL, FAST, DEFAULT_MODEL, DEFAULT_MODEL]  # one summary attempt
    assert len(notices) == 1
    assert notices[0].text.startswith("the conversation could not be compacted")


def test_the_estimate_counts_text_tools_and_images() -> None:
    from zengine_jupyter.protocol import ImagePart, Message, TextPart, ToolSpec

    request = ModelRequest(
        system="s" * 400,
        messages=[
            Message(role="user", content=[TextPart(text="t" * 800)]),
            Message(role="user", content=[ImagePart(media_type="image/png", data="A" * 90_000)]),
        ],
        tools=[ToolSpec(name="Read", description="d" * 40, input_schema={"type": "object"})],
    )
    assert 100 + 200 + 1_600 < estimate_tokens(request) < 100 + 200 + 1_600 + 30
