"""Project extensions in an untrusted workspace: custom agents, custom commands, automatic checks.

Pure decisions the engine applies (``child_mode`` when it starts a subagent, ``trusted_grants``
when it expands a slash command, ``may_run_automatic_checks`` at a turn's stop boundary).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from zengine_jupyter.config._schema import PermissionMode

__all__ = [
    "MODE_LOOSENESS",
    "CommandGrants",
    "child_mode",
    "may_run_automatic_checks",
    "trusted_grants",
]

MODE_LOOSENESS: dict[PermissionMode, int] = {
    "plan": 0,
    "default": 1,
    "accept_edits": 2,
    "bypass": 3,
}
"""Permission modes from strictest (plan: read-only) to loosest (bypass)."""


def child_mode(
    parent: PermissionMode,
    requested: PermissionMode | None,
    *,
    project_defined: bool,
    trusted: bool,
) -> PermissionMode:
    """The mode a custom agent runs in.

    ``requested`` is the agent definition's mode (``None``: inherit the parent's). An untrusted
    project's agent never runs looser than the agent that started it; it may run stricter.
    """
    wanted = parent if requested is None else requested
    if project_defined and not trusted and MODE_LOOSENESS[wanted] > MODE_LOOSENESS[parent]:
        return parent
    return wanted


@dataclass(frozen=True)
class CommandGrants:
    """What a custom command's definition gives its turn."""

    allowed_tools: tuple[str, ...]
    """Extra allow rules for the command's turn only."""
    run_inline_commands: bool
    """Whether its inline !`command` lines run while the prompt is expanded."""


def trusted_grants(
    allowed_tools: Sequence[str], *, project_defined: bool, trusted: bool
) -> CommandGrants:
    """An untrusted project's command gets no allowed-tools and its !`command` lines do not run."""
    if project_defined and not trusted:
        return CommandGrants(allowed_tools=(), run_inline_commands=False)
    return CommandGrants(allowed_tools=tuple(allowed_tools), run_inline_commands=True)


def may_run_automatic_checks(mode: str, *, trusted: bool) -> bool:
    """Whether the stop boundary may run checks by itself (auto / strict, trusted only).

    Untrusted, the mode still decides the badge, and Verify can still run discovered checks.
    """
    return trusted and mode in ("auto", "strict")
