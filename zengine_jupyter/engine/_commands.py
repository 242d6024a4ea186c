"""Built-in slash commands: /cost, /mode, /model, /effort, /sessions, /trust, /compact,
/title, /help.

Integrations add theirs (/mcp, /rewind, /checks, /verify, /lsp, MCP prompts) through
``session.commands`` when their extension starts. Every one of those names is reserved
(:func:`is_reserved_command`): a custom command file may not replace it, from any layer.
A line ``/name ...`` whose name no command has is answered here (:func:`unknown_command`),
never sent to the model; a line whose first word is not a command name (``/etc/hosts: ...``,
a path) is an ordinary prompt (:func:`parse_command_line`).
"""

from __future__ import annotations

import asyncio
import difflib
import re
from dataclasses import replace
from typing import TYPE_CHECKING, get_args

from zengine_jupyter.config import PERMISSION_MODES, TrustStore, is_permission_mode
from zengine_jupyter.engine._chat_options import BYPASS_OFF, allowed_modes
from zengine_jupyter.engine._command_help import help_command
from zengine_jupyter.engine._compaction import compact_now
from zengine_jupyter.engine._extension import CommandResult
from zengine_jupyter.engine._model_info import describe_model
from zengine_jupyter.engine._titles import rename
from zengine_jupyter.llm import PRICE_UNKNOWN
from zengine_jupyter.protocol import Effort, ModeChangeRecord, ModelChangeRecord
from zengine_jupyter.store import SessionStore

if TYPE_CHECKING:
    from collections.abc import Iterable

    from zengine_jupyter.engine._extension import SlashCommand
    from zengine_jupyter.engine._session import Session

__all__ = [
    "BUILTIN_COMMANDS",
    "INTEGRATION_COMMANDS",
    "RESERVED_COMMANDS",
    "is_reserved_command",
    "parse_command_line",
    "unknown_command",
]


async def _cost(session: Session, args: str) -> CommandResult:
    state = session.writer.state()
    t = state.tokens
    lines = [
        f"cost so far: {session.meter.render()} · tokens: {t.input:,} in, {t.output:,} out, "
        f"{t.cache_read:,} cache read, {t.cache_write:,} cache write"
    ]
    if session.meter.unknown:
        names = ", ".join(session.meter.unknown_models) or "an earlier model of this chat"
        lines.append(
            f"{PRICE_UNKNOWN} for {session.meter.unknown} request(s) ({names}): set "
            '[pricing."MODEL-ID"] in your settings, or the model\'s cost in models.json'
        )
    return CommandResult("\n".join(lines))


async def _mode(session: Session, args: str) -> CommandResult:
    wanted = args.strip()
    if not wanted:
        return CommandResult(f"mode: {session.mode} (choose from {', '.join(PERMISSION_MODES)})")
    if not is_permission_mode(wanted):
        return CommandResult(f"unknown mode {wanted!r}; choose from {', '.join(PERMISSION_MODES)}")
    if wanted not in allowed_modes(session.settings.settings):
        return CommandResult(f"mode: {session.mode} stays: {BYPASS_OFF}")
    session.gate.policy = replace(session.gate.policy, mode=wanted)
    session.journal.record(ModeChangeRecord(mode=wanted))
    return CommandResult(f"mode: {wanted}")


async def _model(session: Session, args: str) -> CommandResult:
    wanted = args.strip()
    if not wanted:
        from zengine_jupyter.llm import REPLAY_MODEL, ReplayClient  # not with a first turn

        if isinstance(session.client, ReplayClient):  # no model: a recording
            return CommandResult(f"model: {REPLAY_MODEL} ({session.client.notice})")
        return CommandResult(describe_model(session))
    await session.set_provider(replace(session.provider, model=wanted))
    session.journal.record(ModelChangeRecord(model=wanted, provider=session.provider.kind))
    return CommandResult(f"model: {wanted}")


async def _effort(session: Session, args: str) -> CommandResult:
    wanted = args.strip()
    choices = get_args(Effort)
    if wanted not in choices:
        current = session.provider.effort or "the model's default"
        return CommandResult(f"effort: {current} (choose from {', '.join(choices)})")
    await session.set_provider(replace(session.provider, effort=wanted))  # type: ignore[arg-type]
    return CommandResult(f"effort: {wanted}")


async def _sessions(session: Session, args: str) -> CommandResult:
    chats = await asyncio.to_thread(SessionStore().list)
    mine = [m for m in chats if m.project == str(session.root)]
    if not mine:
        return CommandResult("no chats for this project yet")
    rows = [
        f"{'*' if m.id == session.id else ' '} {m.id}  {m.updated:%Y-%m-%d %H:%M}  "
        f"${m.cost_usd:.4f}  {m.title}"
        for m in sorted(mine, key=lambda m: m.updated, reverse=True)
    ]
    return CommandResult("\n".join(rows))


async def _trust(session: Session, args: str) -> CommandResult:
    if not session.settings.withheld and session.settings.trusted:
        return CommandResult(f"{session.root} is trusted")
    await asyncio.to_thread(TrustStore().trust, session.root)
    await session.reload_settings()
    return CommandResult(f"trusted {session.root}; its settings now apply")


BUILTIN_COMMANDS: dict[str, SlashCommand] = {
    "cost": _cost,
    "mode": _mode,
    "model": _model,
    "effort": _effort,
    "sessions": _sessions,
    "trust": _trust,
    "compact": compact_now,
    "title": rename,
    "help": help_command,
}

INTEGRATION_COMMANDS = frozenset({"rewind", "checks", "verify", "mcp", "lsp"})
"""Commands the built-in extensions register when a chat opens (checkpoints, verification,
MCP, language servers)."""
RESERVED_COMMANDS = frozenset(BUILTIN_COMMANDS) | INTEGRATION_COMMANDS
"""Names no custom command file may take (compared case-insensitively)."""
_RESERVED_PREFIX = "mcp__"
"""MCP prompts become ``/mcp__<server>__<prompt>``: that namespace is the servers'."""
_LINE = re.compile(r"/([A-Za-z0-9][A-Za-z0-9_.:-]*)(?:\s(.*))?\Z", re.DOTALL)


def is_reserved_command(name: str) -> bool:
    """Whether ``name`` belongs to a built-in (or an MCP prompt) and cannot be replaced."""
    lowered = name.lower()
    return lowered in RESERVED_COMMANDS or lowered.startswith(_RESERVED_PREFIX)


def parse_command_line(text: str) -> tuple[str, str] | None:
    """``("name", "args")`` for ``/name args``; ``None`` when ``text`` is not a command line
    (no leading ``/``, or a first word that is no command name, such as a path)."""
    match = _LINE.match(text)
    if match is None:
        return None
    return match.group(1), match.group(2) or ""


def unknown_command(name: str, known: Iterable[str]) -> str:
    """What ``/name`` answers when no command has that name: the closest names, and /help."""
    names = sorted(known)
    close = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
    if not close:  # a prefix ("/mo") is close too
        close = [n for n in names if n.startswith(name.lower())][:3]
    hint = f"; did you mean {' or '.join(f'/{n}' for n in close)}?" if close else ""
    if name.lower().startswith(_RESERVED_PREFIX):
        hint += "; an MCP prompt is a command once its server is ready (/mcp shows them)"
    return f"unknown command /{name}{hint} (/help lists the commands; nothing was sent)"
