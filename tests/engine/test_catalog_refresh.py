"""Issue 21.1, acceptance 1: where a chat's catalog comes from. A day-old cache is refreshed in
the background from a local server standing in for models.dev (``ZENGINE_CATALOG_URL``) and the
open chat prices with the new copy; offline the stale cache stays in use; with no cache the
bundled snapshot is used and /model says so; a broken cache or models.json is a notice naming
the file, and the rest of the catalog still applies."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import cast

import pytest

from zengine_jupyter.engine import CatalogExtension, Session, SessionOptions, Subscription
from zengine_jupyter.llm import CATALOG_URL_ENV, SNAPSHOT_DATE
from zengine_jupyter.protocol import EngineEvent, Notice
from zengine_jupyter.testing import (
    ProviderServer,
    Reply,
    ScriptedUsage,
    free_port,
    provider_settings,
)

SAMPLE = Path(__file__).parents[1] / "fixtures" / "llm" / "models-dev-sample.json"
MODEL = "acme-coder-2"
USAGE = ScriptedUsage(input=1_000_000, output=0)
"""One million input tokens: the cost is the input price."""


def catalog_with(input_price: float, output_limit: int = 8_000) -> dict[str, object]:
    catalog = json.loads(SAMPLE.read_text())
    catalog["anthropic"]["models"][MODEL] = {
        "id": MODEL,
        "limit": {"context": 200_000, "output": output_limit},
        "cost": {"input": input_price, "output": 10, "cache_read": 0.1, "cache_write": 1},
    }
    return cast("dict[str, object]", catalog)


def cache_path(home: Path) -> Path:
    return home / "cache" / "models-dev.json"


def write_stale_cache(home: Path, catalog: dict[str, object], days: float = 2) -> Path:
    path = cache_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(catalog))
    old = time.time() - days * 24 * 3600
    os.utime(path, (old, old))
    return path


def catalog_of(session: Session) -> CatalogExtension:
    return cast("CatalogExtension", next(e for e in session.extensions if e.name == "catalog"))


async def command(session: Session, line: str) -> str:
    name, _, args = line.removeprefix("/").partition(" ")
    return (await session.commands[name](session, args)).text


async def drain(sub: Subscription) -> list[EngineEvent]:
    return [event async for event in sub]


async def test_a_stale_cache_is_refreshed_in_the_background_and_the_open_chat_uses_it(
    project: Path, zengine_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_stale_cache(zengine_home, catalog_with(input_price=2))
    async with ProviderServer() as server, ProviderServer() as models_dev:
        models_dev.files["/api.json"] = json.dumps(catalog_with(input_price=7)).encode()
        monkeypatch.setenv(CATALOG_URL_ENV, f"{models_dev.base_url}/api.json")
        (zengine_home / "settings.toml").write_text(provider_settings(server.base_url, model=MODEL))
        server.add(Reply.answer("new price", usage=USAGE))
        session = await Session.open(SessionOptions(project=project))
        try:
            refresh = catalog_of(session).refreshing
            assert refresh is not None  # started when the chat opened, not awaited by it
            before = await command(session, "/model")
            assert await refresh is True
            after = await command(session, "/model")
            await session.submit("hello")
            assert catalog_of(session).refreshing is None  # fresh now: no second fetch
        finally:
            await session.aclose()
    assert [r.path for r in models_dev.requests] == ["/api.json"]
    assert (
        json.loads(cache_path(zengine_home).read_text())["anthropic"]["models"][MODEL]["cost"][
            "input"
        ]
        == 7
    )
    assert time.time() - cache_path(zengine_home).stat().st_mtime < 60
    assert "$2 in" in before
    assert "$7 in" in after
    assert session.meter.total_usd == pytest.approx(7.0)  # priced by the refreshed copy
    today = time.strftime("%Y-%m-%d", time.gmtime())
    assert f"catalog: models.dev as of {today}" in after


async def test_offline_the_stale_cache_stays_in_use(
    project: Path, zengine_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stale = write_stale_cache(zengine_home, catalog_with(input_price=2))
    before = stale.read_bytes()
    monkeypatch.setenv(CATALOG_URL_ENV, f"http://127.0.0.1:{free_port()}/api.json")
    async with ProviderServer() as server:
        (zengine_home / "settings.toml").write_text(provider_settings(server.base_url, model=MODEL))
        server.add(Reply.answer("one", usage=USAGE), Reply.answer("two", usage=USAGE))
        session = await Session.open(SessionOptions(project=project))
        sub = session.subscribe()
        try:
            refresh = catalog_of(session).refreshing
            assert refresh is not None
            assert await refresh is False
            await session.submit("first")
            assert catalog_of(session).refreshing is None  # not tried again at once
            await session.submit("second")
            model = await command(session, "/model")
        finally:
            await session.aclose()
    assert stale.read_bytes() == before
    assert session.meter.total_usd == pytest.approx(4.0)  # both turns at the stale price
    assert server.requests[0].json["max_tokens"] == 8_000
    assert "catalog: models.dev as of " in model
    assert "bundled" not in model
    assert not [e for e in await drain(sub) if isinstance(e, Notice) and e.topic == "catalog"]


async def test_without_a_cache_the_bundled_snapshot_is_used_and_model_says_so(
    project: Path, zengine_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CATALOG_URL_ENV, f"http://127.0.0.1:{free_port()}/api.json")
    async with ProviderServer() as server:
        # deepseek-v4-flash is priced by no table but the catalog: here the bundled one
        (zengine_home / "settings.toml").write_text(
            provider_settings(server.openai_url, kind="openai", model="deepseek-v4-flash")
        )
        server.add(Reply.answer("ok", usage=USAGE))
        session = await Session.open(SessionOptions(project=project))
        try:
            refresh = catalog_of(session).refreshing
            assert refresh is not None
            assert await refresh is False  # offline
            await session.submit("hello")
            model = await command(session, "/model")
        finally:
            await session.aclose()
    assert not cache_path(zengine_home).exists()
    assert session.meter.total_usd == pytest.approx(0.14)
    assert f"catalog: the bundled snapshot of models.dev ({SNAPSHOT_DATE}) is in use" in model
    assert f"the cache {cache_path(zengine_home)} does not exist yet" in model
    assert "limits: context 1,000,000 tokens · output up to 384,000 tokens" in model


async def test_with_the_refresh_off_the_bundled_snapshot_says_why(
    project: Path, zengine_home: Path
) -> None:
    assert os.environ[CATALOG_URL_ENV] == "off"  # what every test gets (no models.dev)
    session = await Session.open(SessionOptions(project=project))
    try:
        assert catalog_of(session).refreshing is None
        model = await command(session, "/model")
    finally:
        await session.aclose()
    assert f"the refresh is off ({CATALOG_URL_ENV}=off)" in model


async def test_a_broken_cache_and_models_json_are_named_and_the_rest_applies(
    project: Path, zengine_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = cache_path(zengine_home)
    cache.parent.mkdir(parents=True)
    cache.write_text('{"anthropic": {"models": {')  # a torn download
    models_json = zengine_home / "models.json"
    models_json.write_text(
        json.dumps(
            {
                "claude-sonnet-4-6": {"limit": {"output": 5_000}},
                "claude-haiku-4-5": {"limit": {"output": "lots"}},
                "broken": 3,
            }
        )
    )
    async with ProviderServer() as server, ProviderServer() as models_dev:
        models_dev.files["/api.json"] = json.dumps(catalog_with(input_price=7)).encode()
        monkeypatch.setenv(CATALOG_URL_ENV, f"{models_dev.base_url}/api.json")
        (zengine_home / "settings.toml").write_text(provider_settings(server.base_url))
        server.add(Reply.answer("one"), Reply.answer("two"))
        session = await Session.open(SessionOptions(project=project))
        sub = session.subscribe()  # start-up notices are replayed to a new subscriber
        try:
            await session.submit("first")  # the snapshot, corrected, serves meanwhile
            refresh = catalog_of(session).refreshing
            assert refresh is None or await refresh is True
            models_json.write_text("{not json")
            await session.submit("second")
        finally:
            await session.aclose()
    texts = [e.text for e in await drain(sub) if isinstance(e, Notice) and e.topic == "catalog"]
    assert len(texts) == 4, texts
    assert texts[0].startswith(f"the models.dev cache {cache} cannot be used: it is not valid JSON")
    assert "the bundled snapshot (2026-07-02) stands in" in texts[0]
    assert texts[1] == (
        f"{models_json}: 'claude-haiku-4-5': limit.output must be a whole number of tokens; "
        "it is skipped"
    )
    assert texts[2] == f"{models_json}: the entry 'broken' is not an object; it is skipped"
    assert texts[3].startswith(f"{models_json} is not used: it is not valid JSON (")
    assert "line 1, column 2" in texts[3]
    bodies = [r.json for r in server.requests]
    assert [b["max_tokens"] for b in bodies] == [5_000, 16_000]  # corrected, then not
    assert MODEL in json.loads(cache.read_text())["anthropic"]["models"]  # replaced by refresh


async def test_two_chats_opening_together_fetch_the_catalog_once(
    project: Path, zengine_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_stale_cache(zengine_home, catalog_with(input_price=2))
    async with ProviderServer() as models_dev:
        models_dev.files["/api.json"] = json.dumps(catalog_with(input_price=7)).encode()
        monkeypatch.setenv(CATALOG_URL_ENV, f"{models_dev.base_url}/api.json")
        first, second = await asyncio.gather(
            Session.open(SessionOptions(project=project)),
            Session.open(SessionOptions(project=project)),
        )
        try:
            tasks = [t for s in (first, second) if (t := catalog_of(s).refreshing) is not None]
            assert len(tasks) == 1
            assert await tasks[0] is True
            assert first.catalog is second.catalog  # one copy per data folder
            assert second.model_info(MODEL) is not None
        finally:
            await first.aclose()
            await second.aclose()
    assert len(models_dev.requests) == 1
