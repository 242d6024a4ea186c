"""The permission rule grammar used by ``permissions.allow``, ``ask`` and ``deny``.

A rule is ``Tool`` (every call of that tool) or ``Tool(specifier)``:

* ``Bash(npm run test:*)``: a command; a trailing ``:*`` matches any command that starts with
  the text before it, otherwise the command must match the glob (``*`` matches anything).
* ``Read(src/**)``, ``Edit(*.py)``: a path glob (``*`` and ``**`` both match across folders).
* ``mcp__github`` names every tool of one MCP server; ``mcp__github__create_issue`` one tool.

The permission gate (``policy/``) decides with these rules; here they are parsed once, when a
settings layer is validated, so a malformed rule is reported with its file and key.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

__all__ = ["PermissionRule"]

_RULE = re.compile(r"^(?P<tool>[A-Za-z][A-Za-z0-9_-]*)(?:\((?P<spec>.+)\))?$", re.DOTALL)


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
        if self.specifier.endswith(":*"):
            return argument.startswith(self.specifier[:-2])
        return fnmatch.fnmatchcase(argument, self.specifier)

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
