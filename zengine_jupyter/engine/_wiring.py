"""Effective settings -> the parts a session runs with (model client, gate policy)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zengine_jupyter.config import ENV_OVERRIDES
from zengine_jupyter.llm import ClientDeps, CostMeter, ModelPrice, ProviderOptions

if TYPE_CHECKING:
    from collections.abc import Sequence

    from zengine_jupyter.config import Settings
    from zengine_jupyter.llm import ModelLookup
    from zengine_jupyter.protocol import SettingsIssue

__all__ = ["client_deps", "describe_provider_issue", "provider_options"]


def provider_options(settings: Settings, invalid: Sequence[SettingsIssue] = ()) -> ProviderOptions:
    """``[model]`` and ``[provider]`` as the llm layer's options; ``invalid`` are the
    settings' ``provider_issues`` (skipped provider settings: the client then fails)."""
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
        invalid=tuple(describe_provider_issue(issue) for issue in invalid),
    )


def describe_provider_issue(issue: SettingsIssue) -> str:
    """``provider.base_url in FILE (user layer) is not valid: REASON`` or, for an override,
    ``provider.base_url in the environment (ZENGINE_BASE_URL) is not valid: REASON``."""
    reason = issue.reason.replace("Value error, ", "")
    if issue.layer == "env" and issue.key in ENV_OVERRIDES:
        key = ".".join(ENV_OVERRIDES[issue.key])
        reason = reason.removeprefix(f"{key}: ")
        return f"{key} in the environment ({issue.key}) is not valid: {reason}"
    where = issue.file or "settings"
    if issue.line is not None:
        where += f":{issue.line}"
    if not reason.startswith("is not applied"):
        reason = f"is not valid: {reason}"
    return f"{issue.key} in {where} ({issue.layer} layer) {reason}"


def client_deps(
    settings: Settings, meter: CostMeter, catalog: ModelLookup | None = None
) -> ClientDeps:
    """``[pricing]``, the catalog (``session.catalog``: limits and prices) and the cost cap,
    with the chat's running cost."""
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
        pricing=pricing,
        catalog=catalog,
        meter=meter,
        cost_cap_usd=settings.agents.session_cost_cap_usd,
    )
