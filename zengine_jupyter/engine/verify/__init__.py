"""Verification wired into a chat: the Verify tool, /checks and /verify, and the badge and
modes at the stop boundary (see ``_extension``)."""

from zengine_jupyter.engine.verify._checks import (
    ChatChecks,
    Reporter,
    configured_checks,
    summary,
)
from zengine_jupyter.engine.verify._extension import VerificationExtension
from zengine_jupyter.engine.verify._runner import ShellCheckRunner, shell_command
from zengine_jupyter.engine.verify._tool import VerifyInput, VerifyTool

__all__ = [
    "ChatChecks",
    "Reporter",
    "ShellCheckRunner",
    "VerificationExtension",
    "VerifyInput",
    "VerifyTool",
    "configured_checks",
    "shell_command",
    "summary",
]
