"""Issue 21.1, acceptance 1: a chat prices, caps and sizes its requests from the models.dev
catalog in the data folder, corrected by models.json, against the local provider server (the
request bodies and the usage it reports)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zengine_jupyter.engine import Session, SessionOptions, Subscription
from zengine_jupyter.llm import BUILTIN_PRICES
from zengine_jupyter.protocol import CostUpdated, EngineEvent, Notice
from zengine_jupyter.store import SessionStore
from zengine_jupyter.testing import (
    ProviderServer,
    Reply,
    ScriptedUsage,
    provider_settings,
    run_cli,
)

SAMPLE = Path(__file__).parents[1] / "fixtures" / "llm" / "models-dev-sample.json"
CATALOG_ONLY = "acme-coder-2"
"""In the cache below only: not in [pricing], not in the built-in table."""
ACME = {
    "id": CATALOG_ONLY,
    "limit": {"context": 200_000, "output": 8_000},
    "cost": {"input": 4, "output": 20, "cache_read": 0.4, "cache_write": 5},
}
USAGE = ScriptedUsage(input=1_500, output=2_500, cache_read=120_000, cache_write=30_000)
BY_HAND = (1_500 * 4 + 2_500 * 20 + 120_000 * 0.4 + 30_000 * 5) / 1_000_000  # = 0.254
CAP = "[agents]\nsession_cost_cap_usd = 1.0\n"


def write_cache(home: Path) -> Path:
    """The models.dev cache: the sample catalog plus ``acme-coder-2`` under anthropic."""
    catalog = json.loads(SAMPLE.read_text())
    catalog["anthropic"]["models"][CATALOG_ONLY] = ACME
    path = home / "cache" / "models-dev.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(catalog))
    return path


async def command(session: Session, line: str) -> str:
    name, _, args = line.removeprefix("/").partition(" ")
    return (await session.commands[name](session, args)).text


async def drain(sub: Subscription) -> list[EngineEvent]:
    """What the bus delivered (call after ``session.aclose()``: the bus is closed)."""
    return [event async for event in sub]


async def test_a_model_priced_only_by_the_catalog_shows_its_exact_cost(
    project: Path, zengine_home: Path
) -> None:
    assert CATALOG_ONLY not in BUILTIN_PRICES
    write_cache(zengine_home)
    async with ProviderServer() as server:
        settings = provider_settings(server.base_url, model=CATALOG_ONLY)
        (zengine_home / "settings.toml").write_text(settings)
        server.add(Reply.answer("priced", usage=USAGE))
        session = await Session.open(SessionOptions(project=project))
        sub = session.subscribe()
        try:
            outcome = await session.submit("hello")
            cost = await command(session, "/cost")
            model = await command(session, "/model")
        finally:
            await session.aclose()
    assert outcome.status == "completed", outcome.reason
    (request,) = server.requests
    assert request.json["model"] == CATALOG_ONLY
    assert request.json["max_tokens"] == 8_000  # the catalog's output limit, under 16k
    (update,) = [e for e in await drain(sub) if isinstance(e, CostUpdated)]
    assert update.turn_usd == pytest.approx(BY_HAND, abs=1e-12)
    assert update.session_usd == pytest.approx(BY_HAND, abs=1e-12)
    assert pytest.approx(0.254) == BY_HAND
    assert session.meter.render() == "$0.2540"
    assert cost.startswith("cost so far: $0.2540 · tokens: 1,500 in, 2,500 out, 120,000 cache")
    assert "price unknown" not in cost
    saved = SessionStore().read(session.id)  # the log's usage record carries the price
    assert saved.state.cost_usd == pytest.approx(BY_HAND, abs=1e-12)
    assert saved.meta.cost_usd == pytest.approx(BY_HAND, abs=1e-12)
    assert "limits: context 200,000 tokens · output up to 8,000 tokens" in model
    assert "price: $4 in, $20 out, $0.4 cache read, $5 cache write per 1M tokens" in model
    assert "(from the catalog)" in model
    assert "catalog: models.dev as of " in model


async def test_max_tokens_follows_the_catalog_and_models_json_overrides_it(
    project: Path, zengine_home: Path
) -> None:
    write_cache(zengine_home)
    async with ProviderServer() as server:
        (zengine_home / "settings.toml").write_text(
            provider_settings(server.openai_url, kind="openai", model=CATALOG_ONLY)
        )
        server.add(Reply.answer("one"), Reply.answer("two"), Reply.answer("three"))
        session = await Session.open(SessionOptions(project=project))
        try:
            await session.submit("first")
            # corrected while the chat is open: the next turn reads the file again
            (zengine_home / "models.json").write_text(
                json.dumps({CATALOG_ONLY: {"limit": {"output": 3_000}}})
            )
            await session.submit("second")
            model = await command(session, "/model")
            (zengine_home / "models.json").write_text(
                json.dumps({CATALOG_ONLY: {"limit": {"output": 50_000}}})
            )
            await session.submit("third")  # a higher limit: the request's own 16k stays
        finally:
            await session.aclose()
    bodies = [r.json for r in server.requests]
    assert [b["max_tokens"] for b in bodies] == [8_000, 3_000, 16_000]
    assert "output up to 3,000 tokens" in model
    assert f"1 model(s) corrected by {zengine_home / 'models.json'}" in model


async def test_an_unknown_model_shows_price_unknown_and_warns_once_about_the_cap(
    project: Path, zengine_home: Path
) -> None:
    async with ProviderServer() as server:
        (zengine_home / "settings.toml").write_text(
            # USAGE's 151,500 prompt tokens would pass the default window's threshold and
            # compact (a summary request): this test is about prices, so no compaction
            provider_settings(
                server.base_url, CAP + "[context]\nauto_compact = false\n", model="mystery-model-x"
            )
        )
        server.add(Reply.answer("a", usage=USAGE), Reply.answer("b"))
        session = await Session.open(SessionOptions(project=project))
        sub = session.subscribe()
        try:
            for prompt in ("one", "two"):
                outcome = await session.submit(prompt)
                assert outcome.status == "completed", outcome.reason
            cost = await command(session, "/cost")
            model = await command(session, "/model")
        finally:
            await session.aclose()
        assert len(server.requests) == 2  # the cap cannot stop what it cannot count
        events = await drain(sub)
        warnings = [e for e in events if isinstance(e, Notice) and e.topic == "cost"]
        assert len(warnings) == 1, warnings
        assert warnings[0].text.startswith("no price is known for mystery-model-x, so agents.")
        assert "session_cost_cap_usd ($1.00) cannot be enforced for it" in warnings[0].text
        assert '[pricing."mystery-model-x"]' in warnings[0].text
        updates = [e for e in events if isinstance(e, CostUpdated)]
        assert [(u.turn_usd, u.session_usd) for u in updates] == [(None, None)] * 2
        assert session.meter.render() == "price unknown"
        assert cost.startswith("cost so far: price unknown · tokens: 1,512 in")
        assert "price unknown for 2 request(s) (mystery-model-x)" in cost
        assert "limits: not in the catalog" in model
        assert 'price: price unknown (set [pricing."mystery-model-x"]' in model

        # the headless footer says it too
        server.add(Reply.answer("d"))
        code, out, err = await run_cli("run", "three", cwd=project)
    assert code == 0, err
    assert out.strip() == "d"
    assert err.rstrip().endswith("· completed · price unknown]")
    assert "cannot be enforced for it" in err


async def test_a_partly_priced_model_warns_when_its_requests_come_back_unpriced(
    project: Path, zengine_home: Path
) -> None:
    # gpt-5 has no cache-write price in the bundled catalog: a request that writes the cache
    # cannot be priced (never $0), and the cap warning names it after the turn
    async with ProviderServer() as server:
        (zengine_home / "settings.toml").write_text(
            provider_settings(server.openai_url, CAP, kind="openai", model="gpt-5")
        )
        server.add(Reply.answer("x", usage=USAGE), Reply.answer("y", usage=USAGE))
        session = await Session.open(SessionOptions(project=project))
        sub = session.subscribe()
        try:
            await session.submit("one")
            await session.submit("two")
        finally:
            await session.aclose()
    warnings = [e for e in await drain(sub) if isinstance(e, Notice) and e.topic == "cost"]
    assert [w.text.split(",")[0] for w in warnings] == ["no price is known for gpt-5"]
    assert session.meter.render() == "price unknown"


async def test_pricing_settings_beat_the_catalog_in_a_chat(
    project: Path, zengine_home: Path
) -> None:
    write_cache(zengine_home)
    own = f'[pricing."{CATALOG_ONLY}"]\ninput = 1\noutput = 2\ncache_read = 0.1\ncache_write = 1\n'
    async with ProviderServer() as server:
        (zengine_home / "settings.toml").write_text(
            provider_settings(server.base_url, own, model=CATALOG_ONLY)
        )
        server.add(Reply.answer("ok", usage=USAGE))
        session = await Session.open(SessionOptions(project=project))
        try:
            await session.submit("hello")
            model = await command(session, "/model")
        finally:
            await session.aclose()
    by_settings = (1_500 * 1 + 2_500 * 2 + 120_000 * 0.1 + 30_000 * 1) / 1_000_000
    assert session.meter.total_usd == pytest.approx(by_settings)
    assert "(from your [pricing] settings)" in model
