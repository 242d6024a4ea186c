"""One line of description per slash command: ``/help`` lists them, and the panel's input box
completes with them (``kernel/_slash.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zengine_jupyter.engine._extension import CommandResult

if TYPE_CHECKING:
    from zengine_jupyter.engine._session import Session

__all__ = ["COMMAND_HELP", "describe_command", "help_command"]

COMMAND_HELP: dict[str, tuple[str, str | None]] = {
    "cost": ("What this chat has cost so far, and its tokens", None),
    "mode": ("Show or set the permission mode", "[default|accept_edits|plan|bypass]"),
    "model": ("Show or set the model for this chat", "[model]"),
    "effort": ("Show or set the reasoning effort", "[low|medium|high|max]"),
    "sessions": ("The chats of this project", None),
    "trust": ("Trust this workspace so its settings apply", None),
    "compact": ("Summarise the conversation so the model starts from the summary", None),
    "title": ("Show or rename this chat's title", "[title]"),
    "help": ("List the commands", None),
    "mcp": ("MCP servers and their states", None),
    "rewind": ("List the messages to rewind to, or rewind", "[N] [code|conversation|both]"),
    "checks": ("The verification checks and the badge", None),
    "verify": ("Run verification checks now", "[check ...]"),
    "lsp": ("Language servers and their states", None),
}
"""(description, argument hint) of each command the engine and its integrations register."""


def describe_command(name: str, command: object) -> str:
    """``name``'s one line: the table's, a custom command file's own, else what it is."""
    if name in COMMAND_HELP:
        return COMMAND_HELP[name][0]
    own = getattr(command, "description", "")
    if isinstance(own, str) and own.strip():
        return own.strip().splitlines()[0]
    return "MCP prompt" if name.startswith("mcp__") else "Custom command"


async def help_command(session: Session, args: str) -> CommandResult:
    """``/help``: each command with one line of description."""
    names = sorted(session.commands)
    width = max((len(n) for n in names), default=0) + 1
    lines = [f"/{name:<{width}} {describe_command(name, session.commands[name])}" for name in names]
    return CommandResult("commands:\n" + "\n".join(lines))
