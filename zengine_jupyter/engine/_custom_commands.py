"""Custom slash commands: ``.z-engine/commands/NAME.md`` in the project (and ``commands/`` in
the user's config folder). Each file is a prompt template::

    ---
    description: Run the pipeline and summarise it
    allowed-tools: Bash(python pipeline.py:*), Read
    ---
    Run the pipeline on $ARGUMENTS. Current status: !`git status --short`

``$ARGUMENTS`` is what follows the command. ``!`cmd` `` runs ``cmd`` (through the agent's
shell) and puts its output in the prompt. ``allowed-tools`` are allow rules for that turn only.
A project that is not trusted gets neither: its allowed-tools are ignored and its ``!`` lines
are not run (the prompt says so). A file named like a built-in command is ignored, with a
notice (``topic="commands"``) naming it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from zengine_jupyter.config import trusted_grants, user_config_dir
from zengine_jupyter.engine._commands import is_reserved_command
from zengine_jupyter.engine._extension import CommandResult, SessionExtension
from zengine_jupyter.protocol import Notice

if TYPE_CHECKING:
    from pathlib import Path

    from zengine_jupyter.engine._session import Session

__all__ = ["CustomCommand", "CustomCommands", "parse_command_file"]

_INLINE = re.compile(r"!`([^`\n]+)`")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class CustomCommand:
    def __init__(self, name: str, body: str, meta: dict[str, str], *, project: bool) -> None:
        self.name = name
        self.body = body
        self.description = meta.get("description", "")
        raw = meta.get("allowed-tools", "").strip().strip("[]")
        self.allowed_tools = tuple(_split_rules(raw))
        self.project = project

    async def __call__(self, session: Session, args: str) -> CommandResult:
        grants = trusted_grants(
            self.allowed_tools, project_defined=self.project, trusted=session.settings.trusted
        )
        prompt = self.body.replace("$ARGUMENTS", args.strip())
        pieces: list[str] = []
        last = 0
        for match in _INLINE.finditer(prompt):
            pieces.append(prompt[last : match.start()])
            if grants.run_inline_commands:
                result = await session.ctx.shells.run(match.group(1), 30.0)
                pieces.append(result.output.decode("utf-8", "replace").strip()[-4000:])
            else:
                pieces.append(f"[not run: `{match.group(1)}` (this project is not trusted)]")
            last = match.end()
        pieces.append(prompt[last:])
        return CommandResult(prompt="".join(pieces).strip(), allow=grants.allowed_tools)


def _split_rules(raw: str) -> list[str]:
    """``Bash(a, b), Read`` -> two rules: split on commas outside parentheses."""
    rules, depth, current = [], 0, ""
    for char in raw:
        depth += char == "("
        depth -= char == ")"
        if char == "," and depth == 0:
            rules.append(current.strip().strip("'\""))
            current = ""
        else:
            current += char
    if current.strip():
        rules.append(current.strip().strip("'\""))
    return [r for r in rules if r]


def parse_command_file(path: Path) -> tuple[str, dict[str, str]]:
    """(body, front matter) of a command file; no front matter is fine."""
    text = path.read_text("utf-8", "replace")
    meta: dict[str, str] = {}
    if text.startswith("---\n") and "\n---" in text[4:]:
        head, _, text = text[4:].partition("\n---")
        text = text.lstrip("-").lstrip("\n")
        for line in head.splitlines():
            key, sep, value = line.partition(":")
            if sep:
                meta[key.strip().lower()] = value.strip()
    return text, meta


class CustomCommands(SessionExtension):
    """Registers the user's and the project's command files (the project's win over the
    user's by name). No file replaces a built-in (:func:`is_reserved_command`: /mode,
    /trust, /rewind, ``/mcp__*`` ...) from any layer, trusted or not: it is ignored with a
    notice naming it."""

    name = "custom-commands"

    async def start(self, session: Session) -> None:
        for folder, project in ((user_config_dir() / "commands", False),
                                (session.root / ".z-engine" / "commands", True)):  # fmt: skip
            if not folder.is_dir():
                continue
            for path in sorted(folder.glob("*.md")):
                name = path.stem
                if not _NAME.match(name):
                    continue
                taken = session.commands.get(name)
                if is_reserved_command(name) or (
                    taken is not None and not isinstance(taken, CustomCommand)
                ):
                    text = f"ignored {path}: /{name} is a built-in command and cannot be replaced"
                    session.announce(Notice(session_id=session.id, topic="commands", text=text))
                    continue
                body, meta = parse_command_file(path)
                session.commands[name] = CustomCommand(name, body, meta, project=project)
