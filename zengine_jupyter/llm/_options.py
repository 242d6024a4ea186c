"""What a model client is built from: plain frozen options, filled by the engine from settings.

``llm/`` does not read settings itself; the engine maps ``[provider]``, ``[model]`` and
``[pricing."MODEL-ID"]`` onto these.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypeAlias

if TYPE_CHECKING:
    from zengine_jupyter.protocol import Effort

__all__ = [
    "ModelPrice",
    "Pricing",
    "ProviderKind",
    "ProviderOptions",
    "RetryPolicy",
    "Role",
    "Timeouts",
]

ProviderKind = Literal["auto", "anthropic", "openai", "replay"]
Role = Literal["main", "fast", "review"]


@dataclass(frozen=True)
class ModelPrice:
    """USD per 1M tokens for each token type; None = unknown (never treated as free)."""

    input: float | None = None
    output: float | None = None
    cache_read: float | None = None
    cache_write: float | None = None


Pricing: TypeAlias = Mapping[str, ModelPrice]
"""``[pricing."MODEL-ID"]``: model id -> its prices (a plain mapping)."""


@dataclass(frozen=True)
class Timeouts:
    """Seconds. ``read_s`` is the longest silence allowed between two bytes of an answer."""

    connect_s: float = 10.0
    read_s: float = 120.0
    write_s: float = 30.0
    pool_s: float = 10.0


@dataclass(frozen=True)
class RetryPolicy:
    """Spec: 5 attempts in total, waits 0.5 s doubling up to 16 s, retry-after up to 60 s."""

    attempts: int = 5
    first_wait_s: float = 0.5
    max_wait_s: float = 16.0
    max_retry_after_s: float = 60.0

    def wait_s(self, retry: int, retry_after_s: float | None = None) -> float:
        """The wait before retry number ``retry`` (1 = the second attempt)."""
        if retry_after_s is not None and retry_after_s >= 0:
            return min(retry_after_s, self.max_retry_after_s)
        return min(self.first_wait_s * 2.0 ** (retry - 1), self.max_wait_s)


@dataclass(frozen=True)
class ProviderOptions:
    """One provider and the models used on it (``[provider]`` and ``[model]``)."""

    model: str | None = None
    """``model.main``; None = the provider's default (``DEFAULT_MODELS``)."""
    kind: ProviderKind = "auto"
    base_url: str | None = None
    """None = the provider's public endpoint (picked from the model name when kind is auto)."""
    fast: str | None = None
    review: str | None = None
    fallbacks: tuple[str, ...] = ()
    effort: Effort | None = None
    """``model.effort``; None = the model's own default (no thinking/effort setting is sent)."""
    max_output_tokens: int | None = None
    """Caps ``ModelRequest.max_tokens``; None = the catalog's output limit."""
    timeouts: Timeouts = field(default_factory=Timeouts)
    cassette: str | None = None
    """A recorded session to replay when nothing live is configured (kind auto, no base URL,
    no key for the default endpoint), or always with kind ``replay``. Relative: to the
    working directory."""
    record: str | None = None
    """Write every answer of the live provider to this cassette (``zengine cassette record``)."""
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    invalid: tuple[str, ...] = ()
    """Provider settings that were set but are not valid, each a sentence naming the setting
    and where it is: while any is listed, ``build_client`` gives a client that fails every
    request (it never falls back to a default endpoint, which would get the prompt and key)."""

    def model_for(self, role: Role) -> str | None:
        """``model.fast`` and ``model.review`` default to ``model.main`` (None: unset)."""
        if role == "fast":
            return self.fast or self.model
        if role == "review":
            return self.review or self.model
        return self.model
