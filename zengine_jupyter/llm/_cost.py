"""What a request cost: ``[pricing]``, else the catalog, else a built-in table.

Input, output, cache-read and cache-write tokens are priced separately (USD per 1M tokens).
A price that is not known makes the cost unknown (None), never $0: a token type that was used
but has no price leaves the whole request unpriced. Such a request reads "price unknown" in the
totals, and it cannot count towards ``agents.session_cost_cap_usd`` (the engine warns once).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from zengine_jupyter.llm._options import ModelPrice
from zengine_jupyter.protocol import CostCapReachedError

if TYPE_CHECKING:
    from collections.abc import Mapping

    from zengine_jupyter.llm._catalog import ModelInfo, ModelLookup
    from zengine_jupyter.protocol import TokenUsage

__all__ = [
    "BUILTIN_PRICES",
    "PRICE_UNKNOWN",
    "CostMeter",
    "PriceSource",
    "Pricer",
    "check_cost_cap",
    "price_usage",
]

PRICE_UNKNOWN = "price unknown"
"""How a cost nobody can tell reads, wherever a total is shown."""
PriceSource = Literal["pricing", "catalog", "built-in"]

BUILTIN_PRICES: Mapping[str, ModelPrice] = {
    # USD per 1M tokens, from the providers' price pages (models.dev, 2026-07).
    "claude-opus-4-8": ModelPrice(5, 25, 0.5, 6.25),
    "claude-sonnet-5": ModelPrice(2, 10, 0.2, 2.5),
    "claude-sonnet-4-6": ModelPrice(3, 15, 0.3, 3.75),
    "claude-sonnet-4-5": ModelPrice(3, 15, 0.3, 3.75),
    "claude-haiku-4-5": ModelPrice(1, 5, 0.1, 1.25),
    "gpt-5.5": ModelPrice(5, 30, 0.5, None),
    "gpt-5": ModelPrice(1.25, 10, 0.125, None),
    "gpt-5.4-mini": ModelPrice(0.75, 4.5, 0.075, None),
    "gpt-4.1": ModelPrice(2, 8, 0.5, None),
}


def _first(*values: float | None) -> float | None:
    return next((v for v in values if v is not None), None)


def price_usage(usage: TokenUsage, price: ModelPrice | None) -> float | None:
    """USD for ``usage`` at ``price``; None when any used token type has no price."""
    if price is None:
        return None
    total = 0.0
    for tokens, per_million in (
        (usage.input_tokens, price.input),
        (usage.output_tokens, price.output),
        (usage.cache_read_tokens, price.cache_read),
        (usage.cache_write_tokens, price.cache_write),
    ):
        if tokens:
            if per_million is None:
                return None
            total += tokens * per_million / 1_000_000
    return total


@dataclass(frozen=True)
class Pricer:
    """Picks the price of a model: ``[pricing]`` first, then the catalog, then the table."""

    pricing: Mapping[str, ModelPrice] = field(default_factory=dict)
    catalog: ModelLookup | None = None
    host: str | None = None

    def source(self, model: str) -> PriceSource | None:
        """Where ``model``'s price comes from (None: nowhere, the price is unknown)."""
        if model in self.pricing:
            return "pricing"
        info = self.catalog.model(model, self.host) if self.catalog else None
        if info is not None and info.price is not None:
            return "catalog"
        return "built-in" if model.rsplit("/", 1)[-1] in BUILTIN_PRICES else None

    def price_for(self, model: str, usage: TokenUsage | None = None) -> ModelPrice | None:
        info: ModelInfo | None = self.catalog.model(model, self.host) if self.catalog else None
        own = self.pricing.get(model)
        if own is not None:  # unset cache prices: the catalog's figure, else the input price
            known = info.price if info is not None and info.price is not None else ModelPrice()
            return ModelPrice(
                own.input,
                own.output,
                _first(own.cache_read, known.cache_read, own.input),
                _first(own.cache_write, known.cache_write, own.input),
            )
        if info is not None and info.price is not None:
            price = info.price
            if usage is not None and info.price_tiers:
                used = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
                for size, tier in sorted(info.price_tiers):
                    if used > size:
                        price = tier
            return price
        return BUILTIN_PRICES.get(model.rsplit("/", 1)[-1])

    def cost(self, model: str, usage: TokenUsage) -> float | None:
        return price_usage(usage, self.price_for(model, usage))


@dataclass
class CostMeter:
    """A chat's running total. ``unknown`` counts requests whose price was not known;
    ``unknown_models`` names their models (in the order first seen, since this meter began)."""

    total_usd: float = 0.0
    unknown: int = 0
    unknown_models: list[str] = field(default_factory=list)

    def add(self, cost_usd: float | None, model: str | None = None) -> None:
        if cost_usd is None:
            self.unknown += 1
            if model is not None and model not in self.unknown_models:
                self.unknown_models.append(model)
        else:
            self.total_usd += cost_usd

    def render(self) -> str:
        """``$0.0123``, ``$0.0123 + price unknown`` or ``price unknown``."""
        if self.unknown and not self.total_usd:
            return PRICE_UNKNOWN
        shown = f"${self.total_usd:.4f}"
        return f"{shown} + {PRICE_UNKNOWN}" if self.unknown else shown


def check_cost_cap(meter: CostMeter, cap_usd: float | None) -> None:
    """Raise ``CostCapReachedError`` once the known spend reached ``agents.session_cost_cap_usd``
    (None = no cap). Unknown prices cannot count towards the cap; the message says so."""
    if cap_usd is None or meter.total_usd < cap_usd:
        return
    extra = f" (plus {meter.unknown} request(s) of unknown price)" if meter.unknown else ""
    raise CostCapReachedError(
        f"this chat has cost ${meter.total_usd:.2f}{extra}, reaching its cap of "
        f"${cap_usd:.2f} (agents.session_cost_cap_usd)",
        hint="raise agents.session_cost_cap_usd in settings, or start a new chat",
    )
