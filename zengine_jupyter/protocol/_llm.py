"""The provider-neutral model conversation: what is asked of a model and what streams back.

A ``ModelRequest`` holds the system prompt, the messages (text, image, thinking, tool-use and
tool-result blocks), the tools (JSON schema) and the limits. A model answers with a stream of
``StreamEvent`` values, one ``type`` tag each, so they can be logged and sent to frontends.

Stream contract (what a ``ModelClient`` yields, in order):

- any number of ``retry`` / ``fallback`` notices while nothing is committed; each one voids
  whatever thinking the failed attempt had streamed;
- ``text`` / ``thinking`` deltas and ``tool_call_start`` / ``tool_call_delta`` / ``tool_call_end``;
- ``usage`` (once per attempt that the provider billed), then ``stop``;
- or, instead of ``stop``, one final ``error`` (the stream then ends; partial text stays valid).

A client never raises for a provider failure: it yields ``error``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import ConfigDict, Field

from zengine_jupyter.protocol._data_model import DataModel

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from zengine_jupyter.protocol._records import (
        RecordedImage,
        RecordedToolCall,
        ThinkingBlock,
        ToolResultRecord,
    )

__all__ = [
    "Effort",
    "ErrorEvent",
    "FallbackEvent",
    "ImagePart",
    "Message",
    "MessagePart",
    "ModelRequest",
    "RedactedThinkingPart",
    "RetryEvent",
    "StopEvent",
    "StopReason",
    "StreamEvent",
    "TextDelta",
    "TextPart",
    "ThinkingDelta",
    "ThinkingPart",
    "TokenUsage",
    "ToolCallDelta",
    "ToolCallEnd",
    "ToolCallStart",
    "ToolResultPart",
    "ToolSpec",
    "ToolUsePart",
    "UsageEvent",
    "message_from_records",
]

Effort = Literal["low", "medium", "high", "max"]
"""How much a reasoning model thinks first (``model.effort``, ``/effort``)."""

StopReason = Literal[
    "end_turn",
    "tool_use",
    "max_tokens",
    "stop_sequence",
    "refusal",
    "pause_turn",
    "context_window_exceeded",
    "other",
]

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class TextPart(DataModel):
    model_config = _FROZEN
    type: Literal["text"] = "text"
    text: str


class ImagePart(DataModel):
    """An image, base64-encoded (png, jpeg, gif or webp)."""

    model_config = _FROZEN
    type: Literal["image"] = "image"
    media_type: Literal["image/png", "image/jpeg", "image/gif", "image/webp"]
    data: str


class ThinkingPart(DataModel):
    """A model's thinking, passed back unmodified (Anthropic checks ``signature``)."""

    model_config = _FROZEN
    type: Literal["thinking"] = "thinking"
    thinking: str
    signature: str | None = None


class RedactedThinkingPart(DataModel):
    model_config = _FROZEN
    type: Literal["redacted_thinking"] = "redacted_thinking"
    data: str


class ToolUsePart(DataModel):
    model_config = _FROZEN
    type: Literal["tool_use"] = "tool_use"
    id: str
    name: str
    input: dict[str, Any]
    extra: dict[str, Any] | None = None
    """Opaque provider data to pass back with the call (Gemini's ``extra_content``)."""


class ToolResultPart(DataModel):
    model_config = _FROZEN
    type: Literal["tool_result"] = "tool_result"
    tool_use_id: str
    content: str | list[TextPart | ImagePart]
    is_error: bool = False


MessagePart = Annotated[
    TextPart | ImagePart | ThinkingPart | RedactedThinkingPart | ToolUsePart | ToolResultPart,
    Field(discriminator="type"),
]


class Message(DataModel):
    model_config = _FROZEN
    role: Literal["user", "assistant"]
    content: list[MessagePart]


def message_from_records(
    role: Literal["user", "assistant"],
    *,
    texts: Iterable[str] = (),
    thinking: Iterable[ThinkingBlock] = (),
    tool_calls: Iterable[RecordedToolCall] = (),
    tool_results: Iterable[ToolResultRecord] = (),
    images: Iterable[RecordedImage] = (),
    image: Callable[[RecordedImage], ImagePart | None] | None = None,
) -> Message:
    """A request ``Message`` from what the session log keeps (the engine's well-formed
    request messages): a user message's tool results come first, then its text; an
    assistant message has its thinking, then text, then tool calls. Empty texts are dropped.
    A result's images (kept by reference) come from ``image``; one it cannot give (or with
    no ``image``) is sent as a line of text saying so; so are a user message's ``images``,
    which follow its text."""
    parts: list[MessagePart] = [
        ToolResultPart(
            tool_use_id=r.tool_call_id, content=_result_content(r, image), is_error=r.is_error
        )
        for r in tool_results
    ]
    parts += [ThinkingPart(thinking=t.text, signature=t.signature) for t in thinking]
    parts += [TextPart(text=t) for t in texts if t]
    parts += [_image_or_note(ref, image) for ref in images]
    parts += [ToolUsePart(id=c.id, name=c.name, input=dict(c.input)) for c in tool_calls]
    return Message(role=role, content=parts)


def _result_content(
    record: ToolResultRecord, image: Callable[[RecordedImage], ImagePart | None] | None
) -> str | list[TextPart | ImagePart]:
    if not record.images:
        return record.output
    content: list[TextPart | ImagePart] = [TextPart(text=record.output)]
    content += [_image_or_note(ref, image, "run the code again to see it") for ref in record.images]
    return content


def _image_or_note(
    ref: RecordedImage,
    image: Callable[[RecordedImage], ImagePart | None] | None,
    what_to_do: str = "attach it again",
) -> TextPart | ImagePart:
    part = image(ref) if image is not None else None
    return part or TextPart(text=(
        f"[image {ref.sha256[:12]} ({ref.media_type}, {ref.size} bytes) is no longer "
        f"stored: {what_to_do}]"))  # fmt: skip


class ToolSpec(DataModel):
    """A tool the model may call; ``input_schema`` is a JSON Schema object."""

    model_config = _FROZEN
    name: str = Field(pattern=r"^[a-zA-Z0-9_-]{1,64}$")
    description: str = ""
    input_schema: dict[str, Any]


class ModelRequest(DataModel):
    """One call to a model. ``model`` empty = the client's own model for its role."""

    model_config = _FROZEN
    system: str = ""
    messages: list[Message]
    tools: list[ToolSpec] = Field(default_factory=list)
    max_tokens: int = Field(default=16_000, ge=1)
    effort: Effort | None = None
    """None = the client's configured effort."""


class TokenUsage(DataModel):
    """Tokens of one billed attempt; ``input_tokens`` excludes cache reads and writes."""

    model_config = _FROZEN
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


# ----------------------------------------------------------------------------- stream events


class TextDelta(DataModel):
    model_config = _FROZEN
    type: Literal["text"] = "text"
    text: str


class ThinkingDelta(DataModel):
    """Thinking text, or (with ``signature``) the end of a thinking block; ``redacted`` carries
    a redacted block's data."""

    model_config = _FROZEN
    type: Literal["thinking"] = "thinking"
    thinking: str = ""
    signature: str | None = None
    redacted: str | None = None


class ToolCallStart(DataModel):
    model_config = _FROZEN
    type: Literal["tool_call_start"] = "tool_call_start"
    index: int
    id: str
    name: str


class ToolCallDelta(DataModel):
    """A fragment of the call's JSON arguments (fragments concatenate)."""

    model_config = _FROZEN
    type: Literal["tool_call_delta"] = "tool_call_delta"
    index: int
    arguments: str


class ToolCallEnd(DataModel):
    """The call is complete; ``input`` is the parsed arguments (``{}`` if they were empty)."""

    model_config = _FROZEN
    type: Literal["tool_call_end"] = "tool_call_end"
    index: int
    id: str
    name: str
    input: dict[str, Any]
    raw_arguments: str | None = None
    """Set (and ``input`` empty) only when the arguments were not a JSON object."""
    extra: dict[str, Any] | None = None
    """Opaque provider data the engine keeps in the ``ToolUsePart`` (Gemini's
    ``extra_content.google.thought_signature``, which must be echoed back)."""


class UsageEvent(DataModel):
    """What one attempt cost. ``cost_usd`` None = the price is unknown (never shown as $0)."""

    model_config = _FROZEN
    type: Literal["usage"] = "usage"
    model: str
    usage: TokenUsage
    cost_usd: float | None = None


class StopEvent(DataModel):
    model_config = _FROZEN
    type: Literal["stop"] = "stop"
    reason: StopReason
    raw: str | None = None
    """The provider's own word for it (``end_turn``, ``tool_calls``, ...)."""


class RetryEvent(DataModel):
    """The provider is busy; attempt ``attempt`` of ``attempts`` starts in ``wait_s`` seconds."""

    model_config = _FROZEN
    type: Literal["retry"] = "retry"
    model: str
    attempt: int
    attempts: int
    wait_s: float
    reason: str
    host: str | None = None
    """The provider's host, when the client knows it."""

    @property
    def message(self) -> str:
        return f"Provider busy · retry {self.attempt} in {self.wait_s:g}s"


class FallbackEvent(DataModel):
    """``from_model`` failed before any answer text; ``to_model`` is tried next."""

    model_config = _FROZEN
    type: Literal["fallback"] = "fallback"
    from_model: str
    to_model: str
    reason: str


class ErrorEvent(DataModel):
    """The request failed for good; the stream ends here. Text already streamed stays."""

    model_config = _FROZEN
    type: Literal["error"] = "error"
    message: str
    hint: str | None = None
    status: int | None = None
    kind: str = "provider"
    """``provider`` (an HTTP/stream error), ``connection``, ``timeout``, ``setup`` (the client
    could not be built: no key for the host, a malformed URL; the setup view helps), ``client``
    (another client-side failure: a recording that diverged), ``cost_cap``,
    ``context_length`` (the request is longer than the model's context window: compacting
    may help)."""
    model: str | None = None
    after_text: bool = False


StreamEvent = Annotated[
    TextDelta
    | ThinkingDelta
    | ToolCallStart
    | ToolCallDelta
    | ToolCallEnd
    | UsageEvent
    | StopEvent
    | RetryEvent
    | FallbackEvent
    | ErrorEvent,
    Field(discriminator="type"),
]
