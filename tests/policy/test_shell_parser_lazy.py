"""The engine's import (a turn's first request waits for it) must not import bashlex, which
builds its parser tables when imported (~0.3-0.7 s); the first command the gate decides does."""

from __future__ import annotations

import subprocess
import sys

_PROBE = """
import sys
import zengine_jupyter.engine
import zengine_jupyter.policy
print("bashlex" in sys.modules)
from zengine_jupyter.policy._commands import split_commands
print([c.words for c in split_commands("git status && rm -rf build") or ()])
print("bashlex" in sys.modules)
print(split_commands("echo $("))
"""


def test_the_engine_imports_the_shell_parser_only_when_a_command_is_decided() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.split("\n")[:4] == [
        "False",
        "[('git', 'status'), ('rm', '-rf', 'build')]",
        "True",
        "None",
    ], done.stdout
