"""Which wire format a base URL speaks, and what one call to an adapter carries.

Hosts on anthropic.com get the Anthropic Messages format; every other host is spoken to as
OpenAI-compatible chat completions. ``provider.kind`` forces either.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol
from urllib.parse import urlsplit

from zengine_jupyter.llm._keys import is_local_host
from zengine_jupyter.protocol import ProviderSetupError

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from zengine_jupyter.llm._catalog import ModelInfo
    from zengine_jupyter.llm._options import ProviderKind
    from zengine_jupyter.protocol import Effort, ModelRequest, StreamEvent

__all__ = [
    "ANTHROPIC_URL",
    "DEFAULT_MODELS",
    "OPENAI_URL",
    "Adapter",
    "CallSpec",
    "Endpoint",
    "WireFormat",
    "detect_endpoint",
]

ANTHROPIC_URL = "https://api.anthropic.com"
OPENAI_URL = "https://api.openai.com/v1"
WireFormat = Literal["anthropic", "openai"]


@dataclass(frozen=True)
class Endpoint:
    wire: WireFormat
    base_url: str
    """Without a trailing slash; Anthropic's is the host root (``/v1/messages`` is added),
    OpenAI-compatible ones include their version path (``/chat/completions`` is added)."""
    host: str

    @property
    def local(self) -> bool:
        return is_local_host(self.host)


@dataclass(frozen=True)
class CallSpec:
    """One attempt: which model, how much thinking, how many output tokens at most."""

    model: str
    effort: Effort | None
    """None = the model's default: no thinking or effort setting is sent."""
    max_tokens: int
    info: ModelInfo | None = None


class Adapter(Protocol):
    """One wire format. ``events`` raises ``ProviderError`` on failure (the client layer
    turns that into retries, fallbacks and a final ``error`` event)."""

    endpoint: Endpoint

    def events(self, request: ModelRequest, call: CallSpec) -> AsyncIterator[StreamEvent]: ...

    async def prepare(self) -> None: ...

    async def aclose(self) -> None: ...


def _shown(url: str) -> str:
    """A URL fit for a message: no user info (it could hold a password), at most 100 chars."""
    return url.rsplit("@", 1)[-1][:100]


DEFAULT_MODELS: dict[str, str] = {
    "api.anthropic.com": "claude-sonnet-4-6",
    "api.openai.com": "gpt-5",
}
"""The model used when ``model.main`` is unset, by host; other hosts need ``model.main``."""


def detect_endpoint(kind: ProviderKind, base_url: str | None, model: str | None) -> Endpoint:
    """The endpoint for ``[provider]``; raises ``ProviderSetupError`` for a malformed URL.

    Without a base URL: Anthropic's when ``kind`` says so, or (auto) when the model is a
    ``claude`` one or no model is set at all; OpenAI's otherwise."""
    if base_url is None or not base_url.strip():
        claude = model is None or model.startswith("claude")
        anthropic = kind == "anthropic" or (kind == "auto" and claude)
        base_url = ANTHROPIC_URL if anthropic else OPENAI_URL
    url = base_url.strip().rstrip("/")
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        parts.port  # noqa: B018  (raises ValueError for a bad port)
    except ValueError:
        host, parts = "", urlsplit("")
    if parts.scheme not in ("http", "https") or not host:
        raise ProviderSetupError(
            f"provider.base_url {_shown(base_url)!r} is not an http(s) URL with a host",
            hint="set provider.base_url to something like https://api.openai.com/v1",
        )
    wire: WireFormat
    if kind in ("auto", "replay"):
        wire = (
            "anthropic" if host == "anthropic.com" or host.endswith(".anthropic.com") else "openai"
        )
    else:
        wire = "anthropic" if kind == "anthropic" else "openai"
    if wire == "anthropic" and url.endswith("/v1"):
        url = url[: -len("/v1")]
    return Endpoint(wire, url, host)
