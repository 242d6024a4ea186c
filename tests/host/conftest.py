from __future__ import annotations

from pathlib import Path

import pytest

from zengine_jupyter.host.checkpoint import ShadowRepository
from zengine_jupyter.testing.components import require_component


@pytest.fixture
def git() -> str:
    return require_component("git")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


@pytest.fixture
def shadow(project: Path, zengine_home: Path, git: str) -> ShadowRepository:
    return ShadowRepository(project, zengine_home, git=git)
