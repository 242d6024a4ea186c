"""The generated protocol files are current: protocol/__init__.py (from the modules'
``__all__``) and labextension/src/protocol.ts (from the wire models)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("generator", ["gen-protocol-init", "gen-protocol-ts"])
def test_the_generated_file_is_current(generator: str) -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / generator), "--check"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
