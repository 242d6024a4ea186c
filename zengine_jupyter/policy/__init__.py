"""Permission rules and the gate's decision (issue: Engine core); sandbox auto-allow."""

from zengine_jupyter.policy._auto_allow import (
    AutoAllowDecision,
    AutoAllowRequest,
    decide_auto_allow,
)

__all__ = ["AutoAllowDecision", "AutoAllowRequest", "decide_auto_allow"]
