"""One wording for an approval's outcome, wherever it is shown (the kernel's plain text, the
CLI's lines; the TypeScript ``outcomeText`` in ``labextension/src/ui/approvals.ts`` says the
same words): "Allowed once.", "Always allowed (RULE).", "Allowed by policy (rule RULE).",
"Denied by you: REASON.", "Denied by policy: REASON.", "Denied by a hook: REASON.",
"Denied (nobody answered): REASON." (no frontend to click, ``zengine run --no``).
"""

from __future__ import annotations

from zengine_jupyter.protocol import ToolCallApproved, ToolCallDenied

__all__ = ["approval_outcome"]

_NO_REASON = ("", "denied")  # the engine's stand-in when a user denies without a note


def _with(head: str, reason: str) -> str:
    reason = reason.strip().rstrip(".")
    return f"{head}: {reason}." if reason not in _NO_REASON else f"{head}."


def approval_outcome(event: ToolCallApproved | ToolCallDenied) -> str:
    """The outcome line for a ToolCallApproved / ToolCallDenied event."""
    if isinstance(event, ToolCallApproved):
        if event.by == "user":
            return f"Always allowed ({event.rule})." if event.rule else "Allowed once."
        if event.by == "hook":
            return "Allowed by a hook."
        if event.rule:
            return f"Allowed by policy (rule {event.rule})."
        if event.by == "auto_allow":
            return "Allowed by policy (sandboxed)."
        return "Allowed by policy."
    if event.by == "user":
        return _with("Denied by you", event.reason)
    if event.by == "hook":
        return _with("Denied by a hook", event.reason)
    if event.by == "no_answer":
        return _with("Denied (nobody answered)", event.reason)
    return _with("Denied by policy", event.reason)
