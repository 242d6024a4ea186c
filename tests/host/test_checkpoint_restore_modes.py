"""Rewind keeps permission bits: a restored file keeps the mode it has, a re-created one gets
git's mode under the umask (see docs/architecture.md, Checkpoints)."""

from __future__ import annotations

import stat
from pathlib import Path

from zengine_jupyter.host.checkpoint import ShadowRepository, restore_code
from zengine_jupyter.protocol import CheckpointInfo


def mode(path: Path) -> str:
    return oct(stat.S_IMODE(path.lstat().st_mode))


async def test_a_0600_file_comes_back_0600(shadow: ShadowRepository, project: Path) -> None:
    """issue 19.6: main restored a 0600 file as 0644 (git stores only 644 and 755)."""
    secret = project / "secret.env"
    secret.write_text("KEY=one\n")
    secret.chmod(0o600)
    tool = project / "tool.sh"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o700)
    first = await shadow.snapshot("m")
    assert isinstance(first, CheckpointInfo)
    secret.write_text("KEY=two\n")
    tool.write_text("#!/bin/sh\necho changed\n")
    result = await restore_code(shadow, first.id)
    assert sorted(result.restored) == ["secret.env", "tool.sh"]
    assert secret.read_text() == "KEY=one\n"
    assert mode(secret) == "0o600"
    assert mode(tool) == "0o700"


async def test_exec_bit_follows_the_snapshot_and_other_bits_stay(
    shadow: ShadowRepository, project: Path
) -> None:
    script = project / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o750)
    first = await shadow.snapshot("m")
    assert isinstance(first, CheckpointInfo)
    script.chmod(0o640)
    await restore_code(shadow, first.id)
    assert mode(script) == "0o750"
