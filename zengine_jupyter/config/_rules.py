"""The permission rule grammar used by ``permissions.allow``, ``ask`` and ``deny``.

A rule is ``Tool`` (every call of that tool) or ``Tool(specifier)``:

* ``Bash(npm run test:*)``: a command; a trailing ``:*`` is a word-bounded prefix (it matches
  ``npm run test`` and ``npm run test -k x``, never ``npm run test-evil``); otherwise the command
  must match the specifier as a glob (``*`` matches anything). The gate matches it against the
  *parsed* command (program name without quotes or path, wrappers such as ``env``, ``nice`` or
  ``timeout`` removed), see ``policy/_gate.py``.
* ``Read(src/**)``, ``Edit(*.py)``: a path glob. ``*`` and ``?`` stay inside one folder, ``**``
  crosses folders: ``Edit(*.py)`` is ``x.py`` at the project's top only, ``Edit(**/*.py)`` every
  Python file of the project. A relative glob is matched against the project-relative path, an
  absolute one (or ``~/...``) against the absolute path.
* ``RunCell(df.head*)``: code run in the user's kernel, a glob on a line of the code (an allow
  rule covers one-statement code only; deny and ask match any line): ``policy/_code_rules.py``.
* ``mcp__github`` names every tool of one MCP server; ``mcp__github__create_issue`` one tool.

The permission gate (``policy/``) decides with these rules; here they are parsed once, when a
settings layer is validated, so a malformed rule is reported with its file and key.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from pathlib import Path

from zengine_jupyter.config._glob import compile_glob

__all__ = ["COMMAND_TOOLS", "PermissionRule"]

_RULE = re.compile(r"^(?P<tool>[A-Za-z][A-Za-z0-9_-]*)(?:\((?P<spec>.+)\))?$", re.DOTALL)

COMMAND_TOOLS = frozenset({"Bash", "Verify", "RunCell"})
"""Tools whose specifier is a command (for RunCell a line of code), not a path glob."""


@dataclass(frozen=True)
class PermissionRule:
    """One parsed rule; ``specifier`` is ``None`` for a bare tool name."""

    tool: str
    specifier: str | None = None

    @classmethod
    def parse(cls, text: str) -> PermissionRule:
        """Parse ``Tool`` or ``Tool(specifier)``; raises ``ValueError`` naming what is wrong."""
        found = _RULE.match(text.strip())
        if found is None:
            raise ValueError(
                f"{text!r} is not a rule: write Tool or Tool(specifier), e.g. Bash(git status)"
            )
        spec = found.group("spec")
        if spec is not None and not spec.strip():
            raise ValueError(f"{text!r} has an empty specifier: drop the parentheses")
        return cls(found.group("tool"), spec.strip() if spec is not None else None)

    def __str__(self) -> str:
        return self.tool if self.specifier is None else f"{self.tool}({self.specifier})"

    def matches(self, tool: str, argument: str | None = None) -> bool:
        """Whether this rule covers a call of ``tool`` with ``argument`` (command or path)."""
        if not self._tool_matches(tool):
            return False
        if self.specifier is None:
            return True
        if argument is None:
            return False
        if self.tool in COMMAND_TOOLS:
            return self.matches_command(argument)
        return self.matches_path(argument)

    def matches_command(self, text: str) -> bool:
        """The specifier against one command's text (words joined by single spaces)."""
        spec = self.specifier
        if spec is None:
            return True
        if spec.endswith(":*"):
            prefix = spec[:-2].rstrip()
            return text == prefix or (text.startswith(prefix) and text[len(prefix)].isspace())
        return fnmatch.fnmatchcase(text, spec)

    def matches_path(self, path: str) -> bool:
        """The specifier as a path glob: ``*`` stays in one folder, ``**`` crosses folders."""
        spec = self.specifier
        if spec is None:
            return True
        if spec == "~" or spec.startswith("~/"):
            spec = str(Path("~").expanduser()) + spec[1:]
        return compile_glob(spec).match(path) is not None

    def applies_to(self, tool: str) -> bool:
        """Whether this rule is about ``tool`` at all (its specifier aside)."""
        return self._tool_matches(tool)

    def _tool_matches(self, tool: str) -> bool:
        if tool == self.tool:
            return True
        # ``mcp__server`` covers every ``mcp__server__tool`` (but not ``mcp__server2__...``).
        return (
            self.specifier is None
            and self.tool.startswith("mcp__")
            and self.tool.count("__") == 1
            and tool.startswith(self.tool + "__")
        )
