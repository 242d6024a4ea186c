from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from zengine_jupyter.engine.tools import ReadTracker, ShellRunner, ToolContext


@pytest.fixture
async def ctx(tmp_path: Path) -> AsyncIterator[ToolContext]:
    root = tmp_path / "project"
    root.mkdir()
    artifacts = tmp_path / "artifacts"
    shells = ShellRunner(root, artifacts)
    yield ToolContext(root=root, artifacts=artifacts, reads=ReadTracker(), shells=shells)
    await shells.aclose()
