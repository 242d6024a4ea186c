"""Acceptance 5: a scripted usage with all four token types is priced exactly as by hand;
an unknown price reads as unknown, never $0. Also the price sources' order and the cap."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from zengine_jupyter.llm import (
    Catalog,
    ClientDeps,
    CostMeter,
    ModelPrice,
    Pricer,
    ProviderOptions,
    check_cost_cap,
    price_usage,
)
from zengine_jupyter.protocol import CostCapReachedError, TokenUsage
from zengine_jupyter.testing import ProviderServer, Reply, ScriptedUsage
from zengine_jupyter.testing.llm import KEY, final_error, stream_once

SAMPLE = Path(__file__).parents[1] / "fixtures" / "llm" / "models-dev-sample.json"
USAGE = ScriptedUsage(input=1_200, output=3_400, cache_read=250_000, cache_write=40_000)
# claude-sonnet-4-6 in the catalog: input 3, output 15, cache_read 0.3, cache_write 3.75 $/1M
BY_HAND = (1_200 * 3 + 3_400 * 15 + 250_000 * 0.3 + 40_000 * 3.75) / 1_000_000  # = 0.2796


@pytest.fixture
def catalog(tmp_path: Path) -> Catalog:
    cache = tmp_path / "models-dev.json"
    shutil.copy(SAMPLE, cache)
    return Catalog.from_files(cache, tmp_path / "models.json")


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
async def test_streamed_usage_is_priced_like_the_hand_computation(
    wire: str, catalog: Catalog
) -> None:
    meter = CostMeter()
    async with ProviderServer(api_key=KEY) as server:
        server.add(Reply.answer("ok", usage=USAGE))
        url = server.base_url if wire == "anthropic" else server.openai_url
        events = await stream_once(
            ProviderOptions(model="claude-sonnet-4-6", kind=wire, base_url=url),  # type: ignore[arg-type]
            deps=ClientDeps(environ={"ZENGINE_API_KEY": KEY}, catalog=catalog, meter=meter),
        )
    (usage,) = [e for e in events if e.type == "usage"]
    assert usage.usage == TokenUsage(
        input_tokens=1_200,
        output_tokens=3_400,
        cache_read_tokens=250_000,
        cache_write_tokens=40_000,
    )
    assert usage.cost_usd == pytest.approx(BY_HAND, abs=1e-12)
    assert pytest.approx(0.2796) == BY_HAND
    assert meter.total_usd == pytest.approx(BY_HAND)
    assert meter.render() == "$0.2796"


def test_unknown_price_is_unknown_never_zero(catalog: Catalog) -> None:
    usage = TokenUsage(input_tokens=10, output_tokens=10)
    pricer = Pricer(catalog=catalog)
    assert pricer.cost("my-local-llama", usage) is None
    # gpt-5 has no cache-write price: used cache writes make the request unpriced
    assert pricer.cost("gpt-5", TokenUsage(input_tokens=10, cache_write_tokens=5)) is None
    assert pricer.cost("gpt-5", usage) == pytest.approx((10 * 1.25 + 10 * 10) / 1e6)
    meter = CostMeter()
    meter.add(None, "my-local-llama")
    assert meter.render() == "price unknown"  # the spec's words, in /cost and the footers
    assert meter.unknown_models == ["my-local-llama"]
    meter.add(0.5)
    assert meter.render() == "$0.5000 + price unknown"
    assert price_usage(usage, ModelPrice(input=1.0)) is None  # output unpriced


def test_pricing_then_catalog_then_builtin(catalog: Catalog) -> None:
    usage = TokenUsage(input_tokens=1_000_000)
    own = {"claude-sonnet-4-6": ModelPrice(input=9, output=9, cache_read=9, cache_write=9)}
    assert Pricer(own, catalog).cost("claude-sonnet-4-6", usage) == pytest.approx(9)
    assert Pricer({}, catalog).cost("claude-sonnet-4-6", usage) == pytest.approx(3)
    assert Pricer({}, None).cost("claude-sonnet-4-6", usage) == pytest.approx(3)  # built-in
    assert Pricer({}, catalog).cost("deepseek-v4-flash", usage) == pytest.approx(0.14)
    # gpt-5.5 is priced higher above its 272k context tier
    big = TokenUsage(input_tokens=300_000)
    assert Pricer({}, catalog).cost("gpt-5.5", big) == pytest.approx(300_000 * 10 / 1e6)


async def test_cost_cap_stops_the_chat_with_a_clear_message() -> None:
    meter = CostMeter(total_usd=2.5)
    check_cost_cap(meter, None)
    check_cost_cap(meter, 3.0)
    with pytest.raises(CostCapReachedError, match=r"\$2\.50, reaching its cap of \$2\.00"):
        check_cost_cap(meter, 2.0)
    async with ProviderServer(api_key=KEY) as server:
        events = await stream_once(
            ProviderOptions(model="m", kind="openai", base_url=server.openai_url),
            deps=ClientDeps(environ={"ZENGINE_API_KEY": KEY}, meter=meter, cost_cap_usd=2.0),
        )
    assert server.requests == []
    assert [e.type for e in events] == ["error"]
    assert final_error(events).kind == "cost_cap"
    assert "agents.session_cost_cap_usd" in final_error(events).message


def test_own_pricing_without_cache_prices_takes_the_catalogs_then_the_input_price(
    catalog: Catalog,
) -> None:
    own = {
        "claude-sonnet-4-6": ModelPrice(input=4, output=20),  # catalog has 0.3 / 3.75
        "my-local": ModelPrice(input=1, output=2),  # not in the catalog
    }
    pricer = Pricer(own, catalog)
    assert pricer.price_for("claude-sonnet-4-6") == ModelPrice(4, 20, 0.3, 3.75)
    assert pricer.price_for("my-local") == ModelPrice(1, 2, 1, 1)
    usage = TokenUsage(input_tokens=1_000_000, cache_read_tokens=1_000_000)
    assert pricer.cost("my-local", usage) == pytest.approx(2.0)
