"""``ModelRequest`` -> the Anthropic Messages API body (``POST /v1/messages``).

Prompt caching: ``cache_control: ephemeral`` on the stable prefix: the last tool, the system
prompt and the last cacheable block of the conversation (3 of the 4 allowed breakpoints).
Thinking: an extended-thinking budget set by effort (about 2k tokens at low to 32k at max);
models that only take adaptive thinking get ``adaptive`` plus ``output_config.effort``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from zengine_jupyter.protocol import (
    ImagePart,
    RedactedThinkingPart,
    TextPart,
    ThinkingPart,
    ToolResultPart,
    ToolUsePart,
)

if TYPE_CHECKING:
    from zengine_jupyter.llm._endpoint import CallSpec
    from zengine_jupyter.protocol import Effort, Message, MessagePart, ModelRequest

__all__ = ["THINKING_BUDGETS", "build_body", "thinking_config"]

THINKING_BUDGETS: dict[Effort, int] = {"low": 2048, "medium": 8192, "high": 16384, "max": 32000}
_MIN_BUDGET = 1024
_EPHEMERAL = {"type": "ephemeral"}
_VERSION = re.compile(r"claude-(?:opus|sonnet|haiku|fable)-(\d+)(?:[-.](\d{1,2}))?(?!\d)")


def _adaptive(call: CallSpec) -> bool:
    """Adaptive thinking for models that take an effort (the catalog says so; else by name:
    Claude 4.6 and later take it, 4.7+ and 5 only take it); a thinking budget for the rest."""
    info = call.info
    if info is not None and (info.effort_values or info.thinking_budget):
        return bool(info.effort_values)
    model = call.model
    match = _VERSION.search(model) or re.search(r"fable-(\d+)", model)
    if not match:
        return False
    major = int(match.group(1))
    minor = int(match.group(2)) if match.lastindex and match.lastindex > 1 and match.group(2) else 0
    return major >= 5 or (major == 4 and minor >= 6)


def thinking_config(call: CallSpec) -> tuple[dict[str, Any] | None, int]:
    """``(thinking block or None, max_tokens)`` for this call."""
    if call.effort is None or (call.info is not None and call.info.reasoning is False):
        return None, call.max_tokens
    if _adaptive(call):
        return {"type": "adaptive"}, call.max_tokens
    budget = THINKING_BUDGETS[call.effort]
    limit = call.info.output if call.info is not None and call.info.output else None
    max_tokens = call.max_tokens + budget
    if limit is not None:
        max_tokens = min(max_tokens, limit)
    budget = min(budget, max_tokens - 1024)
    if budget < _MIN_BUDGET:
        return None, call.max_tokens
    return {"type": "enabled", "budget_tokens": budget}, max_tokens


_EFFORT_PREFERENCE: dict[Effort, tuple[str, ...]] = {
    "low": ("low", "medium"),
    "medium": ("medium", "high", "low"),
    "high": ("high", "medium"),
    "max": ("max", "xhigh", "high"),
}


def _effort(call: CallSpec) -> str:
    """``output_config.effort``: our effort, or the nearest value the model accepts."""
    assert call.effort is not None  # thinking_config sends no thinking without an effort
    accepted = call.info.effort_values if call.info is not None else ()
    if not accepted:
        return call.effort
    return next((v for v in _EFFORT_PREFERENCE[call.effort] if v in accepted), call.effort)


def _sendable(block: MessagePart) -> bool:
    """Thinking without a signature (from another provider) cannot be verified: left out."""
    return not isinstance(block, ThinkingPart) or bool(block.signature)


def _thinking_allowed(request: ModelRequest) -> bool:
    """With thinking on, an assistant turn that called tools must start with its (signed)
    thinking; a history without it (another provider's, or thinking off) gets none now."""
    for message in reversed(request.messages):
        if message.role != "assistant":
            continue
        if not any(isinstance(b, ToolUsePart) for b in message.content):
            return True
        first = next((b for b in message.content if _sendable(b)), None)
        return isinstance(first, ThinkingPart | RedactedThinkingPart)
    return True


def _block(block: MessagePart) -> dict[str, Any]:
    if isinstance(block, TextPart):
        return {"type": "text", "text": block.text}
    if isinstance(block, ImagePart):
        return {
            "type": "image",
            "source": {"type": "base64", "media_type": block.media_type, "data": block.data},
        }
    if isinstance(block, ThinkingPart):
        return {"type": "thinking", "thinking": block.thinking, "signature": block.signature or ""}
    if isinstance(block, RedactedThinkingPart):
        return {"type": "redacted_thinking", "data": block.data}
    if isinstance(block, ToolUsePart):
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    assert isinstance(block, ToolResultPart)
    content: str | list[dict[str, Any]] = (
        block.content if isinstance(block.content, str) else [_block(b) for b in block.content]
    )
    out: dict[str, Any] = {"type": "tool_result", "tool_use_id": block.tool_use_id}
    out["content"] = content
    if block.is_error:
        out["is_error"] = True
    return out


def _message(message: Message) -> dict[str, Any]:
    blocks = [_block(b) for b in message.content if _sendable(b)]
    if message.role == "user":  # tool results must come first in their message
        blocks.sort(key=lambda b: b["type"] != "tool_result")
    return {"role": message.role, "content": blocks}


def _mark_last_cacheable(messages: list[dict[str, Any]]) -> None:
    for message in reversed(messages):
        for block in reversed(message["content"]):
            if block["type"] in ("text", "image", "tool_use", "tool_result"):
                block["cache_control"] = _EPHEMERAL
                return


def build_body(request: ModelRequest, call: CallSpec) -> dict[str, Any]:
    thinking, max_tokens = thinking_config(call)
    if thinking is not None and not _thinking_allowed(request):
        thinking, max_tokens = None, call.max_tokens
    messages = [_message(m) for m in request.messages]
    _mark_last_cacheable(messages)
    body: dict[str, Any] = {"model": call.model, "max_tokens": max_tokens, "stream": True}
    if request.system:
        body["system"] = [{"type": "text", "text": request.system, "cache_control": _EPHEMERAL}]
    if request.tools:
        tools = [
            {"name": t.name, "description": t.description, "input_schema": t.input_schema}
            for t in request.tools
        ]
        tools[-1]["cache_control"] = _EPHEMERAL
        body["tools"] = tools
    body["messages"] = messages
    if thinking is not None:
        body["thinking"] = thinking
        if thinking["type"] == "adaptive":
            body["output_config"] = {"effort": _effort(call)}
    return body
