"""Permission rules and the gate's decision; the sandbox's auto-allow analysis."""

from zengine_jupyter.policy._auto_allow import (
    AutoAllowDecision,
    AutoAllowRequest,
    decide_auto_allow,
    sandbox_auto_allow,
)
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
    "AutoAllowDecision",
    "AutoAllowRequest",
    "CallView",
    "GateDecision",
    "PermissionGate",
    "PermissionPolicy",
    "SimpleCommand",
    "decide_auto_allow",
    "is_read_only",
    "sandbox_auto_allow",
    "split_commands",
    "suggest_rule",
]
