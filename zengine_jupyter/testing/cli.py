"""Run the installed ``zengine`` command the way a user does: a real subprocess.

``run_cli`` awaits it without blocking the loop a provider fake answers on; ``run_cli_sync``
is for plain (sync) tests.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

__all__ = ["ZENGINE", "run_cli", "run_cli_sync"]

ZENGINE = str(Path(sys.executable).with_name("zengine"))
"""The ``zengine`` script installed next to this Python."""


async def run_cli(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, limit_s: float = 60
) -> tuple[int, str, str]:
    """``zengine *args`` with no stdin; (exit code, stdout, stderr). ``env`` defaults to ours."""
    proc = await asyncio.create_subprocess_exec(
        ZENGINE, *args, cwd=cwd, env=dict(os.environ) if env is None else env,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), limit_s)
    return proc.returncode or 0, out.decode(), err.decode()


def run_cli_sync(
    *args: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    stdin: str = "",
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """``zengine *args`` fed ``stdin``, captured as text; never raises on an exit code."""
    return subprocess.run(
        [ZENGINE, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env=env,
        check=False,
    )
