"""What /model says about the chat's model: its limits and price, and which catalog is in use
(the models.dev cache, or the bundled snapshot when there is none)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zengine_jupyter.engine._catalog import describe_catalog
from zengine_jupyter.engine._wiring import client_deps
from zengine_jupyter.llm import PRICE_UNKNOWN, Pricer, ProviderClient

if TYPE_CHECKING:
    from zengine_jupyter.engine._session import Session
    from zengine_jupyter.llm import ModelPrice, PriceSource

__all__ = ["describe_model"]

_FROM: dict[PriceSource, str] = {
    "pricing": "your [pricing] settings",
    "catalog": "the catalog",
    "built-in": "the built-in table",
}


def _usd(value: float | None) -> str:
    return "unknown" if value is None else f"${value:g}"


def _price(price: ModelPrice) -> str:
    return (
        f"{_usd(price.input)} in, {_usd(price.output)} out, {_usd(price.cache_read)} cache "
        f"read, {_usd(price.cache_write)} cache write per 1M tokens"
    )


def describe_model(session: Session) -> str:
    """``model: X`` and a line each for its limits, its price and the catalog in use."""
    client = session.client
    if isinstance(client, ProviderClient):
        model: str | None = client.models[0]
        pricer = client.pricer
    else:
        model = session.provider.model
        deps = client_deps(session.settings.settings, session.meter, session.catalog)
        pricer = Pricer(deps.pricing, deps.catalog)
    lines = [f"model: {model or 'the provider default'}"]
    if model is not None:
        lines += [_limits(session, model), _price_line(pricer, model)]
    if session.catalog is not None:
        lines.append(describe_catalog(session.catalog))
    return "\n".join(lines)


def _limits(session: Session, model: str) -> str:
    info = session.model_info(model)
    if info is None or not (info.context or info.output):
        return "limits: not in the catalog (models.json can give its context and output)"
    context = f"{info.context:,} tokens" if info.context else "unknown"
    output = f"{info.output:,} tokens" if info.output else "unknown"
    return f"limits: context {context} · output up to {output} (the catalog)"


def _price_line(pricer: Pricer, model: str) -> str:
    price, source = pricer.price_for(model), pricer.source(model)
    if price is None or source is None:
        return (
            f'price: {PRICE_UNKNOWN} (set [pricing."{model}"] in your settings, or its cost '
            "in models.json)"
        )
    return f"price: {_price(price)} (from {_FROM[source]})"
