"""Model roles (issue 21.2): model.fast serves titles, compaction summaries and the explore and
verify subagents; it defaults to main and goes through main's retries, fallbacks and key.
Read from the request bodies on the local provider server."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from zengine_jupyter.engine import (
    COMPACT_SYSTEM,
    TITLE_SYSTEM,
    FixedApprovals,
    Session,
    SessionOptions,
)
from zengine_jupyter.llm import ProviderClient
from zengine_jupyter.testing import (
    DEFAULT_MODEL,
    FakeModelClient,
    ProviderServer,
    Reply,
    ScriptedToolCall,
    configured_provider,
    write_provider_settings,
)

FAST = "claude-haiku-4-5"


def _system(body: dict[str, object]) -> str:
    system = body["system"]
    assert isinstance(system, list)
    return "".join(block["text"] for block in system)


async def _titled(session: Session) -> None:
    for _ in range(200):
        if session.writer.state().title is not None:
            return
        await asyncio.sleep(0.02)
    raise AssertionError("no title was written")


async def test_titles_summaries_and_explore_and_verify_agents_ask_the_fast_model(
    project: Path, zengine_home: Path
) -> None:
    async with configured_provider(zengine_home, f'fast = "{FAST}"\n') as server:
        server.title_replies.append(Reply.answer("Pipeline rate question"))
        session = await Session.open(
            SessionOptions(project=project, approvals=FixedApprovals(allow=True))
        )
        server.add(
            Reply(tool_calls=(ScriptedToolCall("Task", {
                "description": "find the rate", "prompt": "Where is RATE set?",
                "subagent_type": "explore"}),)),
            Reply.answer("RATE is set in pipeline.py."),  # the explore agent
            Reply(tool_calls=(ScriptedToolCall("Task", {
                "description": "check it", "prompt": "Check RATE is 1.",
                "subagent_type": "verify"}),)),
            Reply.answer("Checked: RATE is 1."),  # the verify agent
            Reply(tool_calls=(ScriptedToolCall("Task", {
                "description": "anything", "prompt": "Say where RATE is."}),)),
            Reply.answer("In pipeline.py."),  # a general agent
            Reply.answer("RATE is 1, in pipeline.py."),
        )  # fmt: skip
        outcome = await session.submit("Where is RATE set?")
        await _titled(session)
        server.add(Reply.answer("A summary."))
        await session.submit("/compact")
        await session.aclose()

    assert outcome.status == "completed", outcome.reason
    models = [r.json["model"] for r in server.requests]
    assert models == [DEFAULT_MODEL, FAST, DEFAULT_MODEL, FAST, DEFAULT_MODEL, DEFAULT_MODEL,
                      DEFAULT_MODEL, FAST]  # fmt: skip
    assert _system(server.requests[-1].json) == COMPACT_SYSTEM
    assert [r.json["model"] for r in server.title_requests] == [FAST]
    assert _system(server.title_requests[0].json) == TITLE_SYSTEM
    assert session.writer.state().title == "Pipeline rate question"


async def test_every_role_defaults_to_the_main_model(project: Path, zengine_home: Path) -> None:
    async with configured_provider(zengine_home) as server:
        server.title_replies.append(Reply.answer("Greeting"))
        session = await Session.open(SessionOptions(project=project))
        server.add(Reply.answer("Hello."), Reply.answer("A summary."))
        await session.submit("Say hello")
        await _titled(session)
        await session.submit("/compact")
        assert session.roles.client("fast") is session.client
        assert session.roles.client("review") is session.client
        await session.aclose()
    assert [r.json["model"] for r in server.requests] == [DEFAULT_MODEL, DEFAULT_MODEL]
    assert [r.json["model"] for r in server.title_requests] == [DEFAULT_MODEL]


async def test_the_fast_model_goes_through_mains_retries_fallbacks_and_key(
    project: Path, zengine_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZENGINE_API_KEY", "sk-test-roles-0001")
    async with ProviderServer(api_key="sk-test-roles-0001") as server:
        extra = f'fast = "{FAST}"\nfallbacks = ["claude-fallback-1"]\n'
        write_provider_settings(zengine_home, server.base_url, extra)
        session = await Session.open(SessionOptions(project=project))
        server.add(Reply.answer("Hello."))
        await session.submit("Say hello")
        server.add(Reply.fault(529, retry_after=0), Reply.fault(404),
                   Reply.answer("A summary."))  # fmt: skip
        result = await session.submit("/compact")
        review = session.roles.client("review")
        await session.aclose()
    assert result.text.startswith("compacted"), result.text
    assert [r.json["model"] for r in server.requests] == [
        DEFAULT_MODEL, FAST, FAST, "claude-fallback-1"]  # fmt: skip
    assert all(r.rejected is None for r in server.requests)  # each carried the key
    assert review is session.client  # model.review unset: main's own client


async def test_a_client_handed_in_serves_every_role_and_names_no_chat(
    project: Path, zengine_home: Path
) -> None:
    fake = FakeModelClient(Reply.answer("Hi."))
    session = await Session.open(SessionOptions(project=project, client=fake))
    await session.submit("hello")
    assert session.roles.client("fast") is fake
    assert not session.roles.live
    await session.aclose()
    assert len(fake.requests) == 1  # no title request went to a scripted client


async def test_review_has_its_own_client_and_a_model_change_rebuilds_the_roles(
    project: Path, zengine_home: Path
) -> None:
    async with configured_provider(zengine_home, 'review = "claude-review-1"\n'):
        session = await Session.open(SessionOptions(project=project))
        review = session.roles.client("review")
        assert isinstance(review, ProviderClient)
        assert review.models[0] == "claude-review-1"
        assert session.roles.client("review") is review  # built once
        assert session.roles.model("fast") == DEFAULT_MODEL
        await session.submit("/model claude-other-2")
        assert session.roles.model("fast") == "claude-other-2"  # fast follows main
        assert session.roles.client("fast") is session.client
        assert session.roles.client("review") is not review  # rebuilt for the new settings
        await session.aclose()
