"""The engine's ``CheckRunner``: checks start through the chat's ``ShellRunner``.

So a check runs exactly like the agent's Bash commands: in the project, with the same
environment allowlist, and inside the sandbox when the session's runner wraps commands.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from zengine_jupyter.verify import CheckInvocation, CheckOutput

if TYPE_CHECKING:
    from zengine_jupyter.engine.tools import ShellRunner

__all__ = ["ShellCheckRunner", "shell_command"]


def shell_command(invocation: CheckInvocation, root_cwd: str) -> str:
    """The ``bash -c`` text that runs ``invocation``'s argv in its folder."""
    argv = shlex.join(invocation.argv)
    folder = str(invocation.cwd)
    if folder == root_cwd:
        return f"exec {argv}"
    return f"cd {shlex.quote(folder)} && exec {argv}"


class ShellCheckRunner:
    """Runs a resolved check with ``shells.run`` (its deadline, its sandbox wrap)."""

    def __init__(self, shells: ShellRunner) -> None:
        self.shells = shells

    async def run_check(self, invocation: CheckInvocation) -> CheckOutput:
        command = shell_command(invocation, str(self.shells.root))
        result = await self.shells.run(command, invocation.timeout_s)
        if result.exit_code is None:
            note = f"\n[stopped: still running after {invocation.timeout_s:g} s]\n".encode()
            return CheckOutput(None, result.output + note, timed_out=True)
        return CheckOutput(result.exit_code, result.output)
