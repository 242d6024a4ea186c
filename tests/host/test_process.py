from __future__ import annotations

import asyncio
import sys
from typing import TYPE_CHECKING

import pytest

from zengine_jupyter.host import RunOptions, child_environment, run
from zengine_jupyter.protocol import ProcessError, ProcessTimeoutError

if TYPE_CHECKING:
    from pathlib import Path


async def test_run_captures_output_and_exit_code(tmp_path: Path) -> None:
    done = await run(
        [sys.executable, "-c", "import sys,os; print(os.getcwd()); sys.exit(3)"],
        RunOptions(cwd=tmp_path),
    )
    assert done.returncode == 3
    assert not done.ok
    assert done.text().strip() == str(tmp_path)


async def test_a_missing_program_is_a_typed_error() -> None:
    with pytest.raises(ProcessError, match="no-such-program-zz"):
        await run(["no-such-program-zz"])


async def test_timeout_stops_the_child_and_its_children(tmp_path: Path) -> None:
    marker = tmp_path / "grandchild-alive"
    grandchild = tmp_path / "grandchild.py"
    grandchild.write_text(f"import time\ntime.sleep(1)\nopen({str(marker)!r}, 'w').close()\n")
    parent = tmp_path / "parent.py"
    parent.write_text(
        "import subprocess, sys, time\n"
        f"subprocess.Popen([sys.executable, {str(grandchild)!r}])\n"
        "time.sleep(30)\n"
    )
    with pytest.raises(ProcessTimeoutError, match="stopped"):
        await run([sys.executable, str(parent)], RunOptions(timeout_s=0.5))
    # the whole process group was terminated: the grandchild never writes its marker
    await asyncio.sleep(1.5)
    assert not marker.exists()


def test_child_environment_is_an_allowlist() -> None:
    base = {
        "PATH": "/bin",
        "ANTHROPIC_API_KEY": "sk-secret",
        "LC_ALL": "C",
        "HOME": "() { evil; }",
    }
    env = child_environment({"EXTRA": "1"}, base=base)
    assert env == {"PATH": "/bin", "LC_ALL": "C", "EXTRA": "1"}
