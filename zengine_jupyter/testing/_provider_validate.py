"""Request checks the real APIs make, with their real 400 messages (notes/wire-formats.md).

Each function returns None for a good request, or the error message the API would send.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["validate_anthropic", "validate_openai"]

ANTHROPIC_VERSIONS = frozenset({"2023-06-01", "2026-10-21"})
_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _count_cache_control(body: dict[str, Any]) -> int:
    count = sum(1 for t in body.get("tools") or () if isinstance(t, dict) and "cache_control" in t)
    system = body.get("system")
    if isinstance(system, list):
        count += sum(1 for b in system if isinstance(b, dict) and "cache_control" in b)
    for message in body.get("messages") or ():
        if isinstance(message, dict):
            count += sum(1 for b in _blocks(message.get("content")) if "cache_control" in b)
    return count


def validate_anthropic(headers: dict[str, str], body: Any) -> str | None:
    version = headers.get("anthropic-version")
    if version not in ANTHROPIC_VERSIONS:
        return f"anthropic-version: {version!r} is not a valid version"
    if not isinstance(body, dict):
        return "Request body must be a JSON object"
    if not isinstance(body.get("model"), str):
        return "model: Field required"
    if not isinstance(body.get("max_tokens"), int) or body["max_tokens"] < 0:
        return "max_tokens: Field required"
    if version == "2026-10-21":
        for removed in ("temperature", "top_p", "top_k"):
            if removed in body:
                return f"{removed}: Extra inputs are not permitted"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: Field required"
    for tool in body.get("tools") or ():
        if not _TOOL_NAME.match(str(tool.get("name", ""))):
            return f"tools: tool name {tool.get('name')!r} must match ^[a-zA-Z0-9_-]{{1,64}}$"
        if not isinstance(tool.get("input_schema"), dict):
            return "tools: input_schema: Field required"
    thinking = body.get("thinking")
    if isinstance(thinking, dict) and thinking.get("type") == "enabled":
        budget = thinking.get("budget_tokens")
        if not isinstance(budget, int) or budget < 1024:
            return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
        if budget >= body["max_tokens"]:
            return "`max_tokens` must be greater than `thinking.budget_tokens`"
    cached = _count_cache_control(body)
    if cached > 4:
        return f"A maximum of 4 blocks with cache_control may be provided. Found {cached}."
    previous_tool_ids: list[str] = []
    for i, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role not in ("user", "assistant"):
            return f"messages.{i}.role: Input should be 'user' or 'assistant'"
        blocks = _blocks(message.get("content"))
        for k, block in enumerate(blocks):
            if block.get("type") == "text" and not block.get("text"):
                return f"messages.{i}.content.{k}: text content blocks must be non-empty"
        results = [b for b in blocks if b.get("type") == "tool_result"]
        if previous_tool_ids:
            got = {b.get("tool_use_id") for b in results}
            missing = [t for t in previous_tool_ids if t not in got]
            if role != "user" or missing:
                return (
                    f"messages.{i}: `tool_use` ids were found without `tool_result` blocks "
                    f"immediately after: {', '.join(missing or previous_tool_ids)}. Each "
                    "`tool_use` block must have a corresponding `tool_result` block in the next "
                    "message."
                )
        for k, block in enumerate(blocks):
            if block.get("type") != "tool_result":
                continue
            if block.get("tool_use_id") not in previous_tool_ids:
                return (
                    f"messages.{i}.content.{k}: unexpected `tool_use_id` found in `tool_result` "
                    f"blocks: {block.get('tool_use_id')}. Each `tool_result` block must have a "
                    "corresponding `tool_use` block in the previous message."
                )
            if any(b.get("type") != "tool_result" for b in blocks[:k]):
                return (
                    f"messages.{i}.content.{k}: `tool_result` blocks must come first in the "
                    "user message, before any other content"
                )
        previous_tool_ids = [
            str(b.get("id")) for b in blocks if b.get("type") == "tool_use" and role == "assistant"
        ]
    if previous_tool_ids:
        return (
            f"messages.{len(messages)}: `tool_use` ids were found without `tool_result` blocks "
            f"immediately after: {', '.join(previous_tool_ids)}. Each `tool_use` block must have "
            "a corresponding `tool_result` block in the next message."
        )
    return None


def validate_openai(body: Any) -> tuple[str, str | None] | None:
    """``(message, param)`` of the 400 the API would answer, or None."""
    if not isinstance(body, dict):
        return "Request body must be a JSON object", None
    if not isinstance(body.get("model"), str):
        return "you must provide a model parameter", "model"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "[] is too short - 'messages'", "messages"
    if "stream_options" in body and not body.get("stream"):
        return "The 'stream_options' parameter is only allowed when 'stream' is enabled.", None
    pending: list[str] = []
    open_ids: set[str] = set()
    for i, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role not in ("developer", "system", "user", "assistant", "tool", "function"):
            return (
                f"Invalid value: '{role}'. Supported values are: 'system', 'assistant', "
                "'user', 'tool', 'function' and 'developer'.",
                f"messages.[{i}].role",
            )
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in open_ids:
                return (
                    "Invalid parameter: messages with role 'tool' must be a response to a "
                    "preceeding message with 'tool_calls'.",
                    f"messages.[{i}].role",
                )
            pending = [p for p in pending if p != call_id]
            continue
        if pending:
            return (
                "An assistant message with 'tool_calls' must be followed by tool messages "
                "responding to each 'tool_call_id'. The following tool_call_ids did not have "
                f"response messages: {', '.join(pending)}",
                f"messages.[{i}].role",
            )
        open_ids = set()
        if role == "assistant":
            for call in message.get("tool_calls") or ():
                fn = call.get("function") or {}
                if not isinstance(fn.get("arguments"), str):
                    return (
                        "Invalid type for 'arguments': expected a string",
                        f"messages.[{i}].tool_calls",
                    )
                open_ids.add(str(call.get("id")))
                pending.append(str(call.get("id")))
    if pending:
        return (
            "An assistant message with 'tool_calls' must be followed by tool messages responding "
            f"to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
            f"{', '.join(pending)}",
            f"messages.[{len(messages)}].role",
        )
    return None
