"""Reading the catalog's files: a broken cache falls back to the bundled snapshot, a broken
models.json (or part of one) is named and skipped, the refresh URL comes from
``ZENGINE_CATALOG_URL``, and the snapshot in the package is a models.dev catalog."""

from __future__ import annotations

import json
from pathlib import Path

from zengine_jupyter.llm import (
    CATALOG_URL_ENV,
    MODELS_DEV_URL,
    CatalogCache,
    catalog_url,
)
from zengine_jupyter.llm._catalog_files import read_corrections, read_snapshot
from zengine_jupyter.testing import ProviderServer

SAMPLE = Path(__file__).parents[1] / "fixtures" / "llm" / "models-dev-sample.json"


def test_the_bundled_snapshot_is_the_models_dev_sample() -> None:
    assert read_snapshot() == json.loads(SAMPLE.read_text())


def test_no_cache_reads_the_bundled_snapshot(tmp_path: Path) -> None:
    loaded = CatalogCache(tmp_path).read_now()
    assert loaded.source == "bundled"
    assert loaded.problems == ()
    assert loaded.cached_at is None
    sonnet = loaded.catalog.model("claude-sonnet-4-6")
    assert sonnet is not None
    assert sonnet.output == 64_000


def test_a_cache_that_is_not_a_catalog_is_named_and_the_snapshot_stands_in(
    tmp_path: Path,
) -> None:
    cache = CatalogCache(tmp_path)
    cache.path.parent.mkdir()
    cache.path.write_text('{"error": "maintenance"}')
    loaded = cache.read_now()
    assert loaded.source == "bundled"
    (problem,) = loaded.problems
    assert problem.startswith(f"the models.dev cache {cache.path} cannot be used: it is not")
    assert loaded.catalog.model("gpt-5") is not None
    cache.path.write_bytes(b"\xff\xfe{}")
    assert "it is not UTF-8 text" in cache.read_now().problems[0]


def test_models_json_keeps_what_fits(tmp_path: Path) -> None:
    path = tmp_path / "models.json"
    path.write_text(
        json.dumps(
            {
                "good": {"limit": {"context": 32_768, "output": 4_096}, "cost": {"input": 0}},
                "odd": {
                    "limit": {"context": -1, "output": 100},
                    "cost": {"input": "free", "output": 1},
                    "reasoning": "yes",
                },
                "not-an-object": [1, 2],
                "limit-not-an-object": {"limit": 5},
            }
        )
    )
    kept, problems = read_corrections(path)
    assert kept["good"] == {"limit": {"context": 32_768, "output": 4_096}, "cost": {"input": 0}}
    assert kept["odd"] == {"limit": {"output": 100}, "cost": {"output": 1}}
    assert kept["limit-not-an-object"] == {}
    assert "not-an-object" not in kept
    assert problems == [
        f"{path}: 'odd': reasoning must be true or false; it is skipped",
        f"{path}: 'odd': limit.context must be a whole number of tokens; it is skipped",
        f"{path}: 'odd': cost.input must be a number (USD per 1M tokens); it is skipped",
        f"{path}: the entry 'not-an-object' is not an object; it is skipped",
        f"{path}: 'limit-not-an-object': limit must be an object; it is skipped",
    ]
    path.write_text("[1, 2]")
    assert read_corrections(path) == (
        {},
        [
            f"{path} is not used: it is not a JSON object (model id -> the fields to correct); "
            "the catalog goes on without your corrections until you fix it"
        ],
    )
    assert read_corrections(tmp_path / "absent.json") == ({}, [])


def test_a_skipped_correction_keeps_the_catalogs_value(tmp_path: Path) -> None:
    cache = CatalogCache(tmp_path)
    cache.user_path.write_text(json.dumps({"claude-haiku-4-5": {"limit": {"output": "x"}}}))
    loaded = cache.read_now()
    haiku = loaded.catalog.model("claude-haiku-4-5")
    assert haiku is not None
    assert haiku.output == 64_000  # the snapshot's figure, not dropped
    assert len(loaded.problems) == 1


def test_the_refresh_url_comes_from_the_environment() -> None:
    assert catalog_url({}) == MODELS_DEV_URL
    assert catalog_url({CATALOG_URL_ENV: " http://127.0.0.1:9/api.json "}) == (
        "http://127.0.0.1:9/api.json"
    )
    assert catalog_url({CATALOG_URL_ENV: "OFF"}) is None


async def test_refresh_off_fetches_nothing(tmp_path: Path) -> None:
    async with ProviderServer() as server:
        server.files["/api.json"] = SAMPLE.read_bytes()
        assert await CatalogCache(tmp_path, url=None).refresh() is False
        assert server.requests == []
        assert await CatalogCache(tmp_path, url=f"{server.base_url}/api.json").refresh() is True
    assert (tmp_path / "cache" / "models-dev.json").read_bytes() == SAMPLE.read_bytes()
