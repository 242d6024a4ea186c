"""How the integrations plug into a chat without the turn loop knowing them.

An extension is created per session. It may register tools and slash commands when the chat
opens (``start``), add text to a tool's result (``after_tool``, or ``after_write`` for calls
that changed files: language-server errors after a write), send something back to the model
when it wants to stop (``at_stop``: verification modes), add tools or a reminder to each
request (``request_tools`` / ``reminder``: deferred MCP tools), wait before a turn's first
request (``before_first_request``: MCP servers still starting) or before its first tool call
(``before_first_tool``: work begun at ``turn_started`` that must see the files as the turn
found them, done while the request goes out), follow a settings reload (``reload``), and must
release what it started in ``aclose``. Extensions live in their own modules and are listed in
:data:`EXTENSIONS`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from zengine_jupyter.engine._session import Session
    from zengine_jupyter.engine._turn import TurnOutcome
    from zengine_jupyter.engine.tools import Tool, ToolOutput
    from zengine_jupyter.protocol import RecordedToolCall, ToolSpec

__all__ = ["EXTENSIONS", "CommandResult", "SessionExtension", "SlashCommand"]


@dataclass(frozen=True)
class CommandResult:
    """What a slash command gives back: text for the user, and optionally a prompt to run as
    a turn (an MCP prompt or a custom command expands into one)."""

    text: str = ""
    prompt: str | None = None
    allow: tuple[str, ...] = ()
    """Allow rules for the prompt's turn only (a trusted custom command's allowed-tools)."""


class SlashCommand(Protocol):
    """``/name ARGS``: runs without the model; may expand into a prompt."""

    def __call__(self, session: Session, args: str) -> Awaitable[CommandResult]: ...


class SessionExtension:
    """Base class: every hook does nothing unless overridden."""

    name = "extension"

    async def start(self, session: Session) -> None:
        """Register tools (``session.tools``), commands (``session.commands``), start services."""

    def request_tools(self, session: Session) -> list[ToolSpec]:
        """Tool definitions to add to the next request (beyond ``session.tools``)."""
        return []

    def hidden_tools(self, session: Session) -> set[str]:
        """Names in ``session.tools`` the next request must not define (deferred ones)."""
        return set()

    def reminder(self, session: Session) -> str | None:
        """Text to add to the system prompt of the next request."""
        return None

    async def turn_started(self, session: Session, turn_id: str) -> None:
        """A turn begins, before the model is asked (e.g. note the files' fingerprint)."""

    async def before_first_request(self, session: Session, turn_id: str) -> None:
        """In the turn (its start is journaled, an interrupt stops it), before its first model
        request: e.g. wait, bounded, for MCP servers still starting."""

    async def before_first_tool(self, session: Session, turn_id: str) -> None:
        """In the turn, after its checkpoint and before its first tool call runs: finish what
        must see the files as the turn found them (the verification baseline, started at
        ``turn_started`` and computed while the first request goes out). A turn without tool
        calls never gets here (``at_stop`` does)."""

    async def after_tool(
        self, session: Session, call: RecordedToolCall, tool: Tool[Any], output: ToolOutput
    ) -> ToolOutput:
        """Adjust a finished call's output before it is recorded."""
        return output

    async def after_write(
        self, session: Session, call: RecordedToolCall, tool: Tool[Any], output: ToolOutput
    ) -> ToolOutput:
        """Adjust the output of a finished call that changed files (``output.changed_paths``)
        before it is recorded (e.g. append the language server's errors). Calls that changed
        nothing (an MCP call, a Read) skip it."""
        return output

    async def at_stop(self, session: Session, outcome: TurnOutcome) -> str | None:
        """When the model ends its turn: text to send back to it (it goes on), or None."""
        return None

    async def reload(self, session: Session) -> list[str] | None:
        """The chat's settings were loaded again (the folder was trusted, a file changed).
        May return what it changed in a few words each (``mcp server 'x' restarted``) for the
        "settings reloaded" notice."""
        return None

    async def aclose(self) -> None:
        """Stop what ``start`` started; must be idempotent."""


def _lazy(module: str, name: str) -> Callable[[], SessionExtension]:
    """A factory importing ``module`` on first use (the extension modules import this one)."""

    def make() -> SessionExtension:
        factory: Callable[[], SessionExtension] = getattr(importlib.import_module(module), name)
        return factory()

    return make


EXTENSIONS: list[Callable[[], SessionExtension]] = [
    _lazy("zengine_jupyter.engine._catalog", "CatalogExtension"),  # first: reads the catalog
    _lazy("zengine_jupyter.engine._sandbox", "SandboxExtension"),  # first: shells are planned
    _lazy("zengine_jupyter.engine._checkpoints", "CheckpointsExtension"),
    _lazy("zengine_jupyter.engine.verify", "VerificationExtension"),
    _lazy("zengine_jupyter.engine.lsp", "LspExtension"),
    _lazy("zengine_jupyter.engine.mcp", "McpExtension"),
    _lazy("zengine_jupyter.engine._replay", "ReplayNoticeExtension"),
    _lazy("zengine_jupyter.engine._price_notice", "PriceNoticeExtension"),
]
"""Factories of the extensions every session gets, in order. Each integration adds its own."""
