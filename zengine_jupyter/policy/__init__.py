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
)
from zengine_jupyter.policy._paths import PathInfo, ProjectPaths
from zengine_jupyter.policy._readonly import is_read_only
from zengine_jupyter.policy._suggest import suggest_rule

__all__ = [
    "AutoAllowDecision",
    "AutoAllowRequest",
    "CallView",
    "GateDecision",
    "PathInfo",
    "PermissionGate",
    "PermissionPolicy",
    "ProjectPaths",
    "SimpleCommand",
    "decide_auto_allow",
    "is_read_only",
    "sandbox_auto_allow",
    "split_commands",
    "suggest_rule",
]
