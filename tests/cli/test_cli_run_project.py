"""Issue 19.9: `zengine run --project DIR` for a folder that does not exist says so."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from zengine_jupyter.store import SessionStore
from zengine_jupyter.testing import ZENGINE


async def test_a_missing_project_folder_is_named_and_no_chat_is_made(tmp_path: Path) -> None:
    """Fault: a mistyped --project opened a chat on nothing and then blamed git (or the key)."""
    missing = tmp_path / "no-such-project"
    proc = await asyncio.create_subprocess_exec(
        ZENGINE, "run", "--project", str(missing), "hello", cwd=tmp_path,
        env=dict(os.environ, ZENGINE_API_KEY="sk-test-unused-0123456789"),
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, err = await asyncio.wait_for(proc.communicate(), 60)
    text = err.decode()
    assert proc.returncode == 1, text
    assert f"no such folder: {missing}" in text
    assert "git" not in text
    assert "Traceback" not in text
    assert SessionStore().list() == []
    assert not missing.exists()
