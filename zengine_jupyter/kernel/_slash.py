"""The slash commands the panel's input box completes, with a description each.

From a chat: every name in ``session.commands`` (built-ins, the integrations' own, custom
command files, ``/mcp__<server>__<prompt>``). With no chat open yet: the built-ins and the
integrations' commands every chat gets, plus the custom command files on disk.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from zengine_jupyter.engine import COMMAND_HELP

if TYPE_CHECKING:
    from pathlib import Path

    from zengine_jupyter.engine import Session
    from zengine_jupyter.protocol import SlashCommand

__all__ = ["KNOWN", "slash_commands"]

KNOWN = COMMAND_HELP
"""Descriptions of the commands the engine and its integrations register (the engine's table,
which ``/help`` lists too)."""


async def slash_commands(session: Session | None) -> list[SlashCommand]:
    """Sorted by name; custom and MCP prompt commands carry their own descriptions."""
    from zengine_jupyter.engine import CustomCommand
    from zengine_jupyter.protocol import SlashCommand

    if session is None:
        found: dict[str, Any] = dict.fromkeys(KNOWN)
        found |= await asyncio.to_thread(_custom_on_disk)
        prompts: dict[str, Any] = {}
    else:
        found = dict(session.commands)
        prompts = {p.command: p for p in _mcp_prompts(session)}
    out = []
    for name in sorted(found):
        if name in prompts:
            prompt = prompts[name]
            args = " ".join(f"<{a.name}>" if a.required else f"[{a.name}]"
                            for a in prompt.arguments)  # fmt: skip
            description = prompt.description or f"MCP prompt {prompt.name} from {prompt.server}"
            out.append(SlashCommand(name=name, description=description,
                                    argument_hint=args or None))  # fmt: skip
        elif isinstance(found[name], CustomCommand) or name not in KNOWN:
            text = getattr(found[name], "description", "") or "Custom command"
            out.append(SlashCommand(name=name, description=text, argument_hint="[arguments]"))
        else:
            description, hint = KNOWN[name]
            out.append(SlashCommand(name=name, description=description, argument_hint=hint))
    return out


def _mcp_prompts(session: Session) -> tuple[Any, ...]:
    for extension in session.extensions:
        hub = getattr(extension, "_hub", None) if extension.name == "mcp" else None
        if hub is not None:
            return tuple(hub.prompts())
    return ()


def _custom_on_disk() -> dict[str, Any]:
    """The custom command files a new chat would register (user's, then the project's)."""
    from zengine_jupyter.config import user_config_dir
    from zengine_jupyter.engine import CustomCommand, is_reserved_command, parse_command_file
    from zengine_jupyter.kernel._status import current_status

    root = current_status().project_root
    found: dict[str, Any] = {}
    folders: list[tuple[Path, bool]] = [(user_config_dir() / "commands", False),
                                        (root / ".z-engine" / "commands", True)]  # fmt: skip
    for folder, project in folders:
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.md")):
            if path.stem in KNOWN or is_reserved_command(path.stem):
                continue  # a built-in's name: the chat ignores the file (with a notice)
            body, meta = parse_command_file(path)
            found[path.stem] = CustomCommand(path.stem, body, meta, project=project)
    return found
