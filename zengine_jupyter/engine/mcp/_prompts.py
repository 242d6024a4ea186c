"""MCP prompts as slash commands: ``/mcp__<server>__<prompt> [args]`` (spec item 4).

Arguments are written ``name=value`` or positionally in the prompt's declared order; quote a
value with spaces (shell rules). The filled prompt's messages become the user's turn.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from zengine_jupyter.protocol import McpRequestError

if TYPE_CHECKING:
    from zengine_jupyter.engine.mcp._hub import McpHub
    from zengine_jupyter.integrations.mcp import McpPrompt, McpPromptResult

__all__ = ["prompt_arguments", "prompt_text", "run_prompt_command"]


def prompt_arguments(prompt: McpPrompt, raw: str) -> dict[str, str]:
    """The arguments of ``/<command> raw``; a missing required one is a clear error."""
    where = f"/{prompt.command}"
    try:
        tokens = shlex.split(raw)
    except ValueError as exc:
        raise McpRequestError(prompt.server, f"{where}: cannot read its arguments: {exc}") from exc
    declared = [a.name for a in prompt.arguments]
    values: dict[str, str] = {}
    positional: list[str] = []
    for token in tokens:
        name, sep, value = token.partition("=")
        if sep and name in declared:
            values[name] = value
        else:
            positional.append(token)
    free = [name for name in declared if name not in values]
    if positional and not free:
        raise McpRequestError(
            prompt.server, f"{where} takes no more arguments (got {' '.join(positional)!r})"
        )
    if len(positional) > len(free):  # the last free argument takes the rest
        cut = len(free) - 1
        positional = [*positional[:cut], " ".join(positional[cut:])]
    values.update(zip(free, positional, strict=False))
    missing = [a.name for a in prompt.arguments if a.required and a.name not in values]
    if missing:
        usage = " ".join(a.name if a.required else f"[{a.name}]" for a in prompt.arguments)
        raise McpRequestError(
            prompt.server, f"{where} needs {', '.join(missing)}", hint=f"usage: {where} {usage}"
        )
    return values


def prompt_text(result: McpPromptResult) -> str:
    """The filled prompt as one user message (assistant parts are labelled)."""
    parts: list[str] = []
    for message in result.messages:
        block = message.content
        body = block.text if block.kind == "text" else f"[{block.kind} {block.uri or ''}]".strip()
        parts.append(body if message.role == "user" else f"(assistant) {body}")
    return "\n\n".join(parts)


async def run_prompt_command(hub: McpHub, command: str, raw: str) -> str:
    """``/mcp__<server>__<prompt> raw``: fill the prompt on its server; the text to send."""
    prompt = next((p for p in hub.prompts() if p.command == command), None)
    if prompt is None:
        server = command.split("__")[1] if command.startswith("mcp__") else ""
        raise McpRequestError(server, f"there is no MCP prompt command /{command}")
    manager = hub.manager(prompt.server)
    if manager is None:
        raise McpRequestError(prompt.server, f"MCP server {prompt.server!r} is not running")
    result = await manager.get_prompt(prompt.name, prompt_arguments(prompt, raw))
    return prompt_text(result)
