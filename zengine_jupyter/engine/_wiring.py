"""Effective settings -> the parts a session runs with (model client, gate policy)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zengine_jupyter.llm import ClientDeps, CostMeter, ModelPrice, ProviderOptions

if TYPE_CHECKING:
    from zengine_jupyter.config import Settings

__all__ = ["client_deps", "provider_options"]


def provider_options(settings: Settings) -> ProviderOptions:
    """``[model]`` and ``[provider]`` as the llm layer's options."""
    model, provider = settings.model, settings.provider
    return ProviderOptions(
        model=model.main,
        kind=provider.kind,
        base_url=provider.base_url,
        fast=model.fast,
        review=model.review,
        fallbacks=tuple(model.fallbacks),
        effort=model.effort,
        cassette=provider.cassette,
        record=provider.record,
    )


def client_deps(settings: Settings, meter: CostMeter) -> ClientDeps:
    """``[pricing]`` and the cost cap, with the chat's running cost."""
    pricing = {
        model_id: ModelPrice(
            input=price.input,
            output=price.output,
            cache_read=price.cache_read,
            cache_write=price.cache_write,
        )
        for model_id, price in settings.pricing.items()
    }
    return ClientDeps(
        pricing=pricing, meter=meter, cost_cap_usd=settings.agents.session_cost_cap_usd
    )
