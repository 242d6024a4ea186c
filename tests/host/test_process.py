from __future__ import annotations

import asyncio
import sys
from typing import TYPE_CHECKING

import pytest

from zengine_jupyter.host import RunOptions, child_environment, open_process, run
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


async def test_a_missing_working_folder_is_named_not_the_program(tmp_path: Path) -> None:
    """The child's chdir fails before the program starts: the error names the folder (it used
    to say the program was not found, which sent the user looking at PATH)."""
    gone = tmp_path / "moved-away"
    with pytest.raises(ProcessError) as caught:
        await run(["true"], RunOptions(cwd=gone))
    assert f"in {str(gone)!r}" in caught.value.message
    assert caught.value.hint is not None
    assert "working folder was moved or removed" in caught.value.hint
    with pytest.raises(ProcessError, match="moved-away"):
        async with open_process(["true"], RunOptions(cwd=gone)):
            pass
    with pytest.raises(ProcessError) as missing:
        await run(["no-such-program-zz"], RunOptions(cwd=tmp_path))
    assert missing.value.hint == "check that the program is installed and on PATH"


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
