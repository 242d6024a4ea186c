"""The models.dev catalog: limits and reasoning from the cache, the user's corrections,
and the background refresh (stale only; offline keeps the stale copy quietly)."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from zengine_jupyter.llm import Catalog, CatalogCache, ClientDeps, ProviderOptions
from zengine_jupyter.testing import ProviderServer, Reply, free_port
from zengine_jupyter.testing.llm import KEY, ask, stream_once

SAMPLE = Path(__file__).parents[1] / "fixtures" / "llm" / "models-dev-sample.json"


@pytest.fixture
def cache(zengine_home: Path) -> CatalogCache:
    store = CatalogCache()
    store.path.parent.mkdir(parents=True)
    shutil.copy(SAMPLE, store.path)
    return store


async def test_limits_reasoning_and_efforts_come_from_the_cache(cache: CatalogCache) -> None:
    catalog = await cache.load()
    sonnet = catalog.model("claude-sonnet-4-6", "api.anthropic.com")
    assert sonnet is not None
    assert (sonnet.provider, sonnet.context, sonnet.output) == ("anthropic", 1_000_000, 64_000)
    assert sonnet.reasoning is True
    assert sonnet.effort_values == ("low", "medium", "high", "max")
    assert sonnet.thinking_budget
    gpt41 = catalog.model("gpt-4.1")
    assert gpt41 is not None
    assert gpt41.reasoning is False
    routed = catalog.model("openai/gpt-5", "openrouter.ai")  # "lab/model" ids resolve too
    assert routed is not None
    assert (routed.id, routed.context, routed.effort_values) == (
        "openai/gpt-5",
        400_000,
        ("minimal", "low", "medium", "high"),
    )
    assert catalog.provider_for_host("api.deepseek.com") == "deepseek"
    assert catalog.model("no-such-model") is None


async def test_models_json_corrects_the_catalog(cache: CatalogCache) -> None:
    cache.user_path.write_text(
        json.dumps(
            {
                "claude-haiku-4-5": {"limit": {"output": 8000}},
                "my-local": {"limit": {"context": 32768, "output": 4096}, "reasoning": False},
            }
        )
    )
    catalog = await cache.load()
    haiku = catalog.model("claude-haiku-4-5")
    assert haiku is not None
    assert (haiku.context, haiku.output) == (200_000, 8000)  # one field corrected, one kept
    assert haiku.price is not None
    assert haiku.price.input == 1
    local = catalog.model("my-local")
    assert local is not None
    assert (local.context, local.output, local.reasoning) == (32768, 4096, False)


async def test_output_limit_caps_max_tokens_on_the_wire(cache: CatalogCache) -> None:
    catalog = await cache.load()
    async with ProviderServer(api_key=KEY) as server:
        server.add(Reply.answer("ok"), Reply.answer("ok"))
        for wire, url in (("openai", server.openai_url), ("anthropic", server.base_url)):
            await stream_once(
                ProviderOptions(model="gpt-4.1", kind=wire, base_url=url),  # type: ignore[arg-type]
                deps=ClientDeps(environ={"ZENGINE_API_KEY": KEY}, catalog=catalog),
                request=ask(max_tokens=100_000),
            )
    assert server.requests[0].json["max_tokens"] == 32_768  # gpt-4.1's output limit
    assert "reasoning_effort" not in server.requests[0].json  # not a reasoning model
    assert server.requests[1].json["max_tokens"] == 32_768
    assert "thinking" not in server.requests[1].json


def _age(path: Path, seconds: float) -> None:
    old = time.time() - seconds
    os.utime(path, (old, old))


async def test_refresh_replaces_a_day_old_cache_and_leaves_a_fresh_one(cache: CatalogCache) -> None:
    fresh = {
        "acme": {
            "id": "acme",
            "models": {"acme-1": {"id": "acme-1", "limit": {"context": 7, "output": 3}}},
        }
    }
    async with ProviderServer() as server:
        server.files["/api.json"] = json.dumps(fresh).encode()
        store = CatalogCache(url=f"{server.base_url}/api.json")
        assert not store.is_stale()
        assert await store.refresh_if_stale() is False
        assert server.requests == []
        _age(store.path, 25 * 3600)
        assert store.is_stale()
        assert await store.refresh_if_stale() is True
        assert len(server.requests) == 1
    catalog = await store.load()
    assert catalog.model("acme-1") is not None
    assert not store.is_stale()
    assert not [p for p in store.path.parent.iterdir() if p.name.endswith(".tmp")]


async def test_offline_keeps_the_stale_copy_quietly(
    cache: CatalogCache, caplog: pytest.LogCaptureFixture
) -> None:
    _age(cache.path, 3 * 24 * 3600)
    before = cache.path.read_bytes()
    offline = CatalogCache(url=f"http://127.0.0.1:{free_port()}/api.json")
    assert await offline.refresh_if_stale() is False
    assert cache.path.read_bytes() == before
    assert not [r for r in caplog.records if r.levelname in ("WARNING", "ERROR")]
    async with ProviderServer() as server:  # an answer that is not a catalog is not stored
        server.files["/api.json"] = b'{"error": "maintenance"}'
        assert await CatalogCache(url=f"{server.base_url}/api.json").refresh() is False
    assert cache.path.read_bytes() == before
    assert (await offline.load()).model("gpt-5") is not None


def test_missing_or_broken_files_give_an_empty_catalog(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text("{not json")
    catalog = Catalog.from_files(tmp_path / "bad.json", tmp_path / "absent.json")
    assert catalog.model("gpt-5") is None


async def test_background_refresh_never_holds_up_a_request(cache: CatalogCache) -> None:
    import asyncio

    from zengine_jupyter.testing import unresponsive_port

    _age(cache.path, 2 * 24 * 3600)
    with unresponsive_port() as port:
        slow = CatalogCache(url=f"http://127.0.0.1:{port}/api.json")
        async with ProviderServer() as server, asyncio.TaskGroup() as group:
            server.add(Reply.answer("answered"))
            task = slow.start_refresh(group)
            assert task is not None
            events = await stream_once(
                ProviderOptions(model="gpt-5", kind="openai", base_url=server.openai_url),
                deps=ClientDeps(environ={}, catalog=await slow.load()),
            )
            assert not task.done()  # the answer came while the refresh was still connecting
            task.cancel()
    assert [e.type for e in events][-1] == "stop"
    fresh = CatalogCache()
    _age(fresh.path, 0)
    async with asyncio.TaskGroup() as group:
        assert fresh.start_refresh(group) is None
