"""Issue 19.3 in a notebook: a kernel that crashes (SIGKILL) while the agent's Bash command
sleeps before its side effects takes the whole command with it."""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import time
from pathlib import Path

import pytest

from zengine_jupyter.testing import ProviderServer, Reply, ScriptedToolCall, running_processes
from zengine_jupyter.testing.kernel import KernelHarness

pytestmark = pytest.mark.e2e


def test_a_crashed_kernel_leaves_no_command_running(
    kernel: KernelHarness, project: Path, server: ProviderServer
) -> None:
    """Fault: the kernel dies (SIGKILL) during an agent's Bash command; the command, its
    background job and a setsid grandchild live on and do their side effects."""
    duration = f"2.{secrets.randbelow(10**6):06d}"
    command = (
        f"setsid sh -c 'sleep {duration}; touch side-setsid' >/dev/null 2>&1 & "
        f"(sleep {duration}; touch side-sub) & "
        f"touch started; sleep {duration}; touch side-fg"
    )
    server.add(Reply(tool_calls=(ScriptedToolCall("Bash", {"command": command}),)))
    cell = kernel.execute("%%agent --mode bypass\nrun it\n")
    assert cell.status == "ok", cell.text
    deadline = time.monotonic() + 60
    while not (project / "started").exists():
        assert time.monotonic() < deadline, "the command never started"
        time.sleep(0.05)
    time.sleep(0.2)
    pid = kernel.manager.provisioner.pid  # type: ignore[union-attr]
    assert pid
    os.kill(pid, signal.SIGKILL)
    time.sleep(float(duration) + 0.7)
    left = running_processes(duration)
    for orphan in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(orphan, signal.SIGKILL)
    assert sorted(p.name for p in project.glob("side-*")) == []
    assert left == []
