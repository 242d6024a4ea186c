"""Attacks on the warm sandbox (``host.sandbox._warm``): the agent's commands share one
bubblewrap, so a command turns on what runs beside it: the helper that starts commands, the
keeper that ends its own, and a verification check running at the same time.

Each command must still end with everything it started, whatever it does to its keeper; the
helper must stay out of its reach (no tracing, no reading its memory, environment or sockets);
and a check, which runs alone, must keep its own output and status."""

from __future__ import annotations

import asyncio
import sys
from typing import TYPE_CHECKING

import pytest

from zengine_jupyter.host import RunOptions
from zengine_jupyter.host.sandbox import (
    CommandOrigin,
    _warm,
    detect_backend,
    open_planned,
    plan_shell,
)
from zengine_jupyter.protocol import ProcessTimeoutError
from zengine_jupyter.testing.components import require_component
from zengine_jupyter.testing.sandbox import SandboxLayout, make_sandbox_layout
from zengine_jupyter.testing.sandbox import run_in_layout as _run

if TYPE_CHECKING:
    from pathlib import Path


RUN_WITH_UNIX_USERS = True
"""Not beside tests/security/test_sandbox_other_homes.py on the other worker (tests/conftest.py):
its users' homes change every profile, which retires the sandbox these tests watch."""


@pytest.fixture
async def layout(tmp_path: Path) -> SandboxLayout:
    require_component("bwrap")
    require_component("git")
    return await make_sandbox_layout(tmp_path)


async def _leftovers(layout: SandboxLayout) -> list[str]:
    """The command lines of everything running in the warm sandbox but its helper, keepers and
    the asking command itself."""
    done = await _run(layout, "ps -eo args=")
    mine = {"ps -eo args=", "bash -c ps -eo args="}
    return [
        line
        for line in done.text().splitlines()
        if line not in mine and "_warm_helper.py" not in line and not line.startswith("bwrap")
        and not line.startswith("/usr/bin/bwrap")
    ]  # fmt: skip


WRITER = "sh -c 'sleep 0.4; echo escaped > {name}'"


@pytest.mark.parametrize(
    "escape",
    [
        pytest.param("kill -9 $PPID; {writer} & sleep 0.1", id="kill its keeper"),
        pytest.param("{writer} & kill -9 $PPID; sleep 0.1", id="start first, then kill its keeper"),
        pytest.param("setsid -f {writer}; disown -a", id="setsid -f"),
        pytest.param(
            "trap '' TERM HUP; nohup sh -c \"trap '' TERM HUP; sleep 0.4; echo escaped > {name}\""
            " >/dev/null 2>&1 &",
            id="ignore SIGTERM and SIGHUP",
        ),
    ],
)
async def test_what_a_command_starts_does_not_outlive_it(
    layout: SandboxLayout, escape: str
) -> None:
    """Attack: leave a writer behind, past the command's end, even by killing the keeper that
    would kill it (the keeper is a process of the same user in the same pid namespace)."""
    name = "escaped.txt"
    script = escape.format(writer=WRITER.format(name=name), name=name)
    await _run(layout, script)
    await asyncio.sleep(1.0)
    assert not (layout.project / name).exists(), "a process of the command outlived it"
    assert await _leftovers(layout) == []
    # the control: kept alive well past 0.4 s, the same writer does write
    await _run(layout, f"{WRITER.format(name=name)} & sleep 2")
    assert (layout.project / name).read_text() == "escaped\n"


async def test_a_command_that_stops_its_keeper_is_still_stopped_at_its_deadline(
    layout: SandboxLayout,
) -> None:
    """Attack: SIGSTOP the keeper (it can neither report nor pass on signals), then run on."""
    with pytest.raises(ProcessTimeoutError):
        await _run(layout, "kill -STOP $PPID; sleep 0.2; sleep 120", timeout_s=1.0)
    assert await _leftovers(layout) == []


async def test_the_helper_and_keepers_cannot_be_read_or_traced(layout: SandboxLayout) -> None:
    """Attack: read the helper's environment, memory and descriptors through /proc, and attach
    to it with ptrace (it holds the control socket every command arrives on)."""
    probe = (
        "import ctypes, os, sys\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "found = []\n"
        "for pid in os.listdir('/proc'):\n"
        # pid 1 is bubblewrap's own init, as confined as this command (no capability, the
        # same seccomp filter): it starts no command and holds no socket
        "    if not pid.isdigit() or int(pid) in (1, os.getpid()):\n"
        "        continue\n"
        "    try:\n"
        "        cmd = open(f'/proc/{pid}/cmdline', 'rb').read()\n"
        "    except OSError:\n"
        "        continue\n"
        "    if b'_warm_helper.py' not in cmd:\n"
        "        continue\n"
        "    found.append(pid)\n"
        "    try:\n"
        "        fds = [f'fd/{n}' for n in os.listdir(f'/proc/{pid}/fd')]\n"
        "    except OSError:\n"
        "        fds = []\n"
        "    for what in ('environ', 'mem', 'maps', 'stack', *fds):\n"
        "        try:\n"
        "            fd = os.open(f'/proc/{pid}/{what}', os.O_RDONLY | os.O_NONBLOCK)\n"
        "            if not what.startswith('fd/'):\n"
        "                os.read(fd, 1)\n"
        "            os.close(fd)\n"
        "            print('READ', pid, what)\n"
        "        except OSError:\n"
        "            pass\n"
        "    if libc.ptrace(16, int(pid), 0, 0) == 0:\n"  # PTRACE_ATTACH
        "        print('TRACED', pid)\n"
        "print('helpers', len(found))\n"
    )
    done = await _run(layout, f"{sys.executable} -c {_quote(probe)}")
    out = done.text()
    assert "READ" not in out, out
    assert "TRACED" not in out, out
    assert int(out.split("helpers")[-1]) >= 2, "the helper and this command's keeper were seen"


async def test_killing_the_helper_does_not_leave_commands_unsandboxed(
    layout: SandboxLayout,
) -> None:
    """Attack: kill the helper (and with it the warm sandbox); the next command must still run
    sandboxed, not fall through to an unconfined start."""
    await _run(layout, "pkill -9 -f _warm_helper.py; sleep 0.2")
    done = await _run(layout, "touch .git/hooks/planted; echo $?")
    assert done.text().strip() != "0"
    assert not (layout.project / ".git" / "hooks" / "planted").exists()


async def test_a_background_shell_cannot_write_into_a_checks_output(
    layout: SandboxLayout,
) -> None:
    """Attack: a background shell writes fake test results into every other process's
    stdout it can open through /proc while a verification check runs. A check starts alone,
    in its own pid namespace, so there is nothing of it to find."""
    backend = await detect_backend()
    forger = (
        "while :; do for f in /proc/[0-9]*/fd/1; do "
        "echo '999 passed' > $f 2>/dev/null; done; sleep 0.01; done"
    )
    plan = plan_shell(
        layout.options(), backend, CommandOrigin.BACKGROUND_SHELL, forger, layout.project
    )
    async with open_planned(plan, RunOptions(env=layout.env()), merge_stderr=True) as shell:
        assert isinstance(shell, _warm.WarmProcess), "the forger runs in the warm sandbox"
        check = await _run(layout, "sleep 0.5; echo '1 failed'; exit 1", CommandOrigin.CHECK)
        bash = await _run(layout, "sleep 0.5; echo mine")
    assert (check.returncode, check.text()) == (1, "1 failed\n")
    assert "999 passed" in bash.text(), "the control: a warm neighbour is reachable"


def _quote(text: str) -> str:
    import shlex

    return shlex.quote(text)
