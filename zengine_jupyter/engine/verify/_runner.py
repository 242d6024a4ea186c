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


FRESH_PYTHON = "export PYTHONDONTWRITEBYTECODE=1; "
"""Python in a check writes no bytecode cache. A .pyc is trusted when the source's size and
mtime-in-seconds match, so a cache a check wrote just before an edit of the same size in the
same second (an agent's fix right after its change) would run the stale code next time."""


def shell_command(invocation: CheckInvocation, root_cwd: str) -> str:
    """The ``bash -c`` text that runs ``invocation``'s argv in its folder."""
    argv = shlex.join(invocation.argv)
    folder = str(invocation.cwd)
    if folder == root_cwd:
        return f"{FRESH_PYTHON}exec {argv}"
    return f"{FRESH_PYTHON}cd {shlex.quote(folder)} && exec {argv}"


class ShellCheckRunner:
    """Runs a resolved check with ``shells.run`` (its deadline, its sandbox wrap)."""

    def __init__(self, shells: ShellRunner) -> None:
        self.shells = shells

    async def run_check(self, invocation: CheckInvocation) -> CheckOutput:
        command = shell_command(invocation, str(self.shells.root))
        result = await self.shells.run(command, invocation.timeout_s, origin="check")
        if result.exit_code is None:
            note = f"\n[stopped: still running after {invocation.timeout_s:g} s]\n".encode()
            return CheckOutput(None, result.output + note, timed_out=True)
        return CheckOutput(result.exit_code, result.output)
