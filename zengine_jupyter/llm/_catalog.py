"""The model catalog: context sizes, output limits, reasoning support and prices per model.

``Catalog`` is an immutable view of a models.dev catalog (``https://models.dev/api.json``: the
cache, or the snapshot bundled with the package; see ``_catalog_cache``) and the user's
``models.json`` corrections. ``models.json`` maps a model id to the fields to correct, in
models.dev's own shape, e.g. ``{"my-local-model": {"limit": {"context": 32768, "output":
4096}, "reasoning": false, "cost": {"input": 0, "output": 0}}}``. Its entries win field by field.

``ModelLookup`` is what a client needs of it (``model``): the engine passes a catalog that stays
current (``engine._catalog.SharedCatalog``), tests a plain ``Catalog``.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from zengine_jupyter.llm._httpx import httpx
from zengine_jupyter.llm._options import ModelPrice

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["Catalog", "ModelInfo", "ModelLookup"]

_log = logging.getLogger(__name__)

_HOST_PROVIDERS: tuple[tuple[str, str], ...] = (
    ("anthropic.com", "anthropic"),
    ("openai.com", "openai"),
    ("openrouter.ai", "openrouter"),
    ("googleapis.com", "google"),
    ("deepseek.com", "deepseek"),
    ("mistral.ai", "mistral"),
    ("groq.com", "groq"),
    ("x.ai", "xai"),
)


@dataclass(frozen=True)
class ModelInfo:
    """What the catalog knows about one model (None = not known)."""

    id: str
    provider: str | None = None
    context: int | None = None
    output: int | None = None
    reasoning: bool | None = None
    effort_values: tuple[str, ...] = ()
    """Reasoning-effort values the model accepts (models.dev ``reasoning_options``)."""
    thinking_budget: bool = False
    """The model takes a thinking budget in tokens (``reasoning_options`` budget_tokens)."""
    interleaved_field: str | None = None
    """The message field earlier reasoning must be passed back in (``reasoning_content``)."""
    price: ModelPrice | None = None
    images: bool | None = None
    """The model takes images as input (models.dev ``modalities.input`` has ``image``)."""
    price_tiers: tuple[tuple[int, ModelPrice], ...] = ()
    """``(context size, price)``: prices for a request whose input is above that size."""


def _price(cost: Any) -> ModelPrice | None:
    if not isinstance(cost, dict):
        return None

    def num(key: str) -> float | None:
        value = cost.get(key)
        return float(value) if isinstance(value, int | float) else None

    return ModelPrice(num("input"), num("output"), num("cache_read"), num("cache_write"))


def _deep_merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def _info(model_id: str, provider: str | None, raw: dict[str, Any]) -> ModelInfo:
    limit: dict[str, Any] = raw["limit"] if isinstance(raw.get("limit"), dict) else {}
    efforts: list[str] = []
    budget = False
    for option in raw.get("reasoning_options") or ():
        if isinstance(option, dict) and option.get("type") == "effort":
            efforts += [str(v) for v in option.get("values") or () if isinstance(v, str)]
        budget = budget or (isinstance(option, dict) and option.get("type") == "budget_tokens")
    cost: dict[str, Any] = raw["cost"] if isinstance(raw.get("cost"), dict) else {}
    tiers = tuple(
        (int(t["tier"]["size"]), p)
        for t in cost.get("tiers") or ()
        if isinstance(t, dict)
        and isinstance(t.get("tier"), dict)
        and t["tier"].get("type") == "context"
        and isinstance(t["tier"].get("size"), int)
        and (p := _price(t)) is not None
    )
    reasoning = raw.get("reasoning")
    modalities = raw.get("modalities")
    inputs = modalities.get("input") if isinstance(modalities, dict) else None
    interleaved = raw.get("interleaved")
    field = interleaved.get("field") if isinstance(interleaved, dict) else None
    return ModelInfo(
        id=model_id,
        provider=provider,
        context=limit.get("context") if isinstance(limit.get("context"), int) else None,
        output=limit.get("output") if isinstance(limit.get("output"), int) else None,
        reasoning=reasoning if isinstance(reasoning, bool) else None,
        effort_values=tuple(efforts),
        thinking_budget=budget,
        interleaved_field=str(field) if isinstance(field, str) else None,
        price=_price(raw.get("cost")),
        images=("image" in inputs) if isinstance(inputs, list) else None,
        price_tiers=tiers,
    )


class ModelLookup(Protocol):
    """What the clients and the pricer ask of a catalog."""

    def model(self, model_id: str, host: str | None = None) -> ModelInfo | None: ...


class Catalog:
    """An immutable view of the catalog and the user's corrections."""

    def __init__(
        self, providers: dict[str, Any] | None = None, overrides: dict[str, Any] | None = None
    ) -> None:
        self._providers = providers if isinstance(providers, dict) else {}
        self._overrides = overrides if isinstance(overrides, dict) else {}
        self._hosts: dict[str, str | None] = {}

    @classmethod
    def from_files(cls, cache: Path, user: Path) -> Catalog:
        """Read both files (absent or unreadable ones count as empty). Blocking: call it in a
        thread. The engine reads them with ``CatalogCache``, which reports a broken file and
        falls back to the bundled snapshot."""
        return cls(_read_json(cache), _read_json(user))

    def provider_for_host(self, host: str) -> str | None:
        if host not in self._hosts:
            self._hosts[host] = self._provider_for_host(host)
        return self._hosts[host]

    def _provider_for_host(self, host: str) -> str | None:
        for suffix, provider in _HOST_PROVIDERS:
            if host == suffix or host.endswith(f".{suffix}"):
                return provider
        for pid, prov in self._providers.items():
            api = prov.get("api") if isinstance(prov, dict) else None
            if isinstance(api, str):
                try:
                    if httpx.URL(api).host == host:
                        return str(pid)
                except httpx.InvalidURL:
                    continue
        return None

    def _models(self, provider: str) -> dict[str, Any]:
        prov = self._providers.get(provider)
        models = prov.get("models") if isinstance(prov, dict) else None
        return models if isinstance(models, dict) else {}

    def _find(self, model_id: str, provider: str | None) -> tuple[str | None, dict[str, Any]]:
        order = [provider] if provider in self._providers else []
        order += [p for p in self._providers if p != provider]
        for pid in order:
            raw = self._models(pid).get(model_id)
            if isinstance(raw, dict):
                return pid, raw
        return None, {}

    def models_of(self, provider: str) -> list[ModelInfo]:
        """Every model the catalog lists for ``provider`` (``anthropic``, ``openai``), by id."""
        models = sorted(self._models(provider).items())
        return [_info(mid, provider, raw) for mid, raw in models if isinstance(raw, dict)]

    def model(self, model_id: str, host: str | None = None) -> ModelInfo | None:
        """What is known about ``model_id``, preferring the provider serving ``host``."""
        provider = self.provider_for_host(host) if host else None
        pid, raw = self._find(model_id, provider)
        if not raw and "/" in model_id:  # openrouter-style "lab/model"
            pid, raw = self._find(model_id.rsplit("/", 1)[1], provider)
        override = self._overrides.get(model_id)
        if isinstance(override, dict):
            raw = _deep_merge(raw, override)
        if not raw:
            return None
        return _info(model_id, pid, raw)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        _log.warning("ignoring %s: %s", path, type(exc).__name__)
        return {}
    return data if isinstance(data, dict) else {}
