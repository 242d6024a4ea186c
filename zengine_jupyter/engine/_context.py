"""How full the model's context is: a request's size in tokens against the model's window.

The window is the model's context size from the catalog (models.dev, corrected by the user's
``models.json``); a model the catalog does not know gets :data:`DEFAULT_CONTEXT_WINDOW`.
A request is counted as its characters / :data:`CHARS_PER_TOKEN` (an image as
:data:`IMAGE_TOKENS`); once the provider has reported the tokens of a request, the next count
is that figure plus the estimate of what was added since, never below the estimate (so a
provider that reports nothing, or too little, leaves the estimate).

``[context] auto_compact`` and ``compact_threshold`` decide when the turn loop compacts:
at ``threshold * window`` tokens.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from zengine_jupyter.llm import CatalogCache, ProviderClient
from zengine_jupyter.protocol import (
    ImagePart,
    RedactedThinkingPart,
    TextPart,
    ThinkingPart,
    ToolResultPart,
    ToolUsePart,
)

if TYPE_CHECKING:
    from zengine_jupyter.llm import ModelClient
    from zengine_jupyter.protocol import ModelRequest, TokenUsage

__all__ = [
    "CHARS_PER_TOKEN",
    "DEFAULT_CONTEXT_WINDOW",
    "IMAGE_TOKENS",
    "ContextGauge",
    "estimate_tokens",
    "window_of",
]

CHARS_PER_TOKEN = 4
"""The usual ratio for English text and code; the provider's own count corrects it."""
IMAGE_TOKENS = 1_600
"""What one image costs (about a 1,000 x 1,000 picture on Anthropic's scale)."""
DEFAULT_CONTEXT_WINDOW = 128_000
"""The window assumed for a model the catalog does not know (a common size; set the real one
in ``models.json``: ``{"MODEL": {"limit": {"context": N}}}``)."""


def _chars(value: object) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return sum(len(str(k)) + _chars(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return sum(_chars(v) for v in value)
    return len(str(value))


def estimate_tokens(request: ModelRequest) -> int:
    """The request's size in tokens, estimated from its text (system, messages, tools)."""
    chars = len(request.system)
    images = 0
    for message in request.messages:
        for part in message.content:
            if isinstance(part, TextPart):
                chars += len(part.text)
            elif isinstance(part, ThinkingPart):
                chars += len(part.thinking)
            elif isinstance(part, ToolUsePart):
                chars += len(part.name) + _chars(part.input)
            elif isinstance(part, ToolResultPart):
                for piece in [part.content] if isinstance(part.content, str) else part.content:
                    if isinstance(piece, str):
                        chars += len(piece)
                    elif isinstance(piece, TextPart):
                        chars += len(piece.text)
                    else:
                        images += 1
            elif isinstance(part, ImagePart):
                images += 1
            elif isinstance(part, RedactedThinkingPart):
                chars += len(part.data) // 4
    for tool in request.tools:
        chars += len(tool.name) + len(tool.description) + _chars(tool.input_schema)
    return -(-chars // CHARS_PER_TOKEN) + images * IMAGE_TOKENS


async def window_of(client: ModelClient, cache: CatalogCache | None = None) -> int:
    """``client``'s model's context window (tokens): the catalog's, else the default."""
    if not isinstance(client, ProviderClient):
        return DEFAULT_CONTEXT_WINDOW
    info = client.model_info()
    if info is None:  # the client has no catalog of its own: read the data folder's
        catalog = await (cache or CatalogCache()).load()
        info = catalog.model(client.models[0], client.pricer.host)
    return info.context if info is not None and info.context else DEFAULT_CONTEXT_WINDOW


@dataclass
class ContextGauge:
    """One chat's count: the window, the settings, the provider's last figure."""

    threshold: float = 0.85
    auto: bool = True
    window: int | None = None
    """None until :meth:`measure` (and again after the model changes)."""
    _seen: tuple[int, int] | None = None
    """(estimate, tokens the provider counted) of the last request it reported."""
    _floor: int = 0
    """The size right after the last compaction: auto-compaction waits until the context has
    grown a tenth of the window beyond it (a summary that is itself too big is not
    summarised again at every step)."""

    async def measure(self, client: ModelClient) -> int:
        """The window of ``client``'s model (looked up once)."""
        if self.window is None:
            self.window = await window_of(client)
        return self.window

    def count(self, request: ModelRequest) -> tuple[int, int]:
        """``(tokens, estimate)`` of ``request``."""
        estimate = estimate_tokens(request)
        if self._seen is None:
            return estimate, estimate
        before, counted = self._seen
        return max(estimate, counted + estimate - before), estimate

    def observe(self, estimate: int, usage: TokenUsage) -> None:
        """The provider counted the request whose estimate was ``estimate``."""
        counted = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
        if counted > 0:
            self._seen = (estimate, counted)

    def compacted(self, tokens_after: int) -> None:
        """The working set was replaced by a summary of ``tokens_after`` tokens."""
        self._seen = None
        self._floor = tokens_after

    @property
    def tokens(self) -> int:
        """The context the provider last counted (0 before its first report)."""
        return self._seen[1] if self._seen else 0

    @property
    def size(self) -> int:
        """The window, or ``DEFAULT_CONTEXT_WINDOW`` while it is unknown."""
        return self.window or DEFAULT_CONTEXT_WINDOW

    @property
    def limit(self) -> int:
        """Tokens at which compaction starts."""
        return int((self.window or DEFAULT_CONTEXT_WINDOW) * self.threshold)

    def full(self, tokens: int) -> bool:
        """Whether a request of ``tokens`` should be compacted first."""
        window = self.window or DEFAULT_CONTEXT_WINDOW
        return self.auto and tokens >= self.limit and tokens - self._floor >= window // 10
