"""``ModelRequest`` -> an OpenAI-compatible chat completions body (``POST .../chat/completions``).

Tool results become ``tool`` messages right after the assistant message that called them;
images inside a tool result follow in a user message (the ``tool`` role takes text only).
Thinking is passed back as ``reasoning_content`` to compatible servers that need it (DeepSeek,
Kimi); OpenAI itself gets none. ``reasoning_effort`` is sent only to models the catalog marks
as reasoning, mapped to the nearest value the model accepts.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from zengine_jupyter.protocol import (
    ImagePart,
    TextPart,
    ThinkingPart,
    ToolResultPart,
    ToolUsePart,
)

if TYPE_CHECKING:
    from zengine_jupyter.llm._endpoint import CallSpec, Endpoint
    from zengine_jupyter.protocol import Effort, Message, ModelRequest

__all__ = ["build_body", "reasoning_effort"]

_PREFERENCE: dict[Effort, tuple[str, ...]] = {
    "low": ("low", "minimal", "medium"),
    "medium": ("medium", "high", "low"),
    "high": ("high", "medium"),
    "max": ("max", "xhigh", "high"),
}


def reasoning_effort(call: CallSpec) -> str | None:
    info = call.info
    if info is None or info.reasoning is not True or call.effort is None:
        return None
    accepted = info.effort_values or ("low", "medium", "high")
    return next((v for v in _PREFERENCE[call.effort] if v in accepted), None)


def _image(block: ImagePart) -> dict[str, Any]:
    return {
        "type": "image_url",
        "image_url": {"url": f"data:{block.media_type};base64,{block.data}"},
    }


def _user(message: Message, out: list[dict[str, Any]]) -> None:
    parts: list[dict[str, Any]] = []
    later_images: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, ToolResultPart):
            if isinstance(block.content, str):
                text = block.content
            else:
                text = "\n".join(b.text for b in block.content if isinstance(b, TextPart))
                later_images += [_image(b) for b in block.content if isinstance(b, ImagePart)]
            if block.is_error:
                text = f"Error: {text}"
            out.append({"role": "tool", "tool_call_id": block.tool_use_id, "content": text})
        elif isinstance(block, TextPart):
            parts.append({"type": "text", "text": block.text})
        elif isinstance(block, ImagePart):
            parts.append(_image(block))
    parts += later_images
    if parts:
        only_text = all(p["type"] == "text" for p in parts)
        content: Any = "\n\n".join(p["text"] for p in parts) if only_text else parts
        out.append({"role": "user", "content": content})


def _assistant(message: Message, out: list[dict[str, Any]], pass_reasoning: bool) -> None:
    text = "".join(b.text for b in message.content if isinstance(b, TextPart))
    calls: list[dict[str, Any]] = []
    for b in message.content:
        if isinstance(b, ToolUsePart):
            arguments = json.dumps(b.input, ensure_ascii=False)
            call = {
                "id": b.id,
                "type": "function",
                "function": {"name": b.name, "arguments": arguments},
            }
            if b.extra:
                call["extra_content"] = b.extra  # e.g. Gemini's thought_signature
            calls.append(call)
    entry: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        entry["tool_calls"] = calls
    if pass_reasoning:
        thinking = "".join(b.thinking for b in message.content if isinstance(b, ThinkingPart))
        if thinking or calls:
            entry["reasoning_content"] = thinking
    out.append(entry)


def _pass_reasoning(call: CallSpec, endpoint: Endpoint) -> bool:
    """Whether earlier thinking goes back as ``reasoning_content``: what the catalog says
    (models.dev ``interleaved``), else for any server but OpenAI's and Google's."""
    if call.info is not None:
        return call.info.interleaved_field == "reasoning_content"
    return not any(
        endpoint.host == h or endpoint.host.endswith(f".{h}")
        for h in ("openai.com", "googleapis.com")
    )


def build_body(request: ModelRequest, call: CallSpec, endpoint: Endpoint) -> dict[str, Any]:
    official = endpoint.host == "openai.com" or endpoint.host.endswith(".openai.com")
    messages: list[dict[str, Any]] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    for message in request.messages:
        if message.role == "user":
            _user(message, messages)
        else:
            _assistant(message, messages, pass_reasoning=_pass_reasoning(call, endpoint))
    body: dict[str, Any] = {
        "model": call.model,
        "messages": messages,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    body["max_completion_tokens" if official else "max_tokens"] = call.max_tokens
    if request.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.input_schema,
                },
            }
            for t in request.tools
        ]
    effort = reasoning_effort(call)
    if effort is not None:
        body["reasoning_effort"] = effort
    return body
