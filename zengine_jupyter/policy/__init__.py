"""Permission rules and the gate's decision; the sandbox's auto-allow analysis."""

from zengine_jupyter.policy._commands import SimpleCommand, split_commands
from zengine_jupyter.policy._gate import (
    CallView,
    GateDecision,
    PermissionGate,
    PermissionPolicy,
    suggest_rule,
)
from zengine_jupyter.policy._readonly import is_read_only

__all__ = [
    "CallView",
    "GateDecision",
    "PermissionGate",
    "PermissionPolicy",
    "SimpleCommand",
    "is_read_only",
    "split_commands",
    "suggest_rule",
]
