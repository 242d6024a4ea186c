"""protocol/__init__.py is generated from the modules' __all__ and must be current."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_protocol_init_is_generated_and_current() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "gen-protocol-init"), "--check"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
