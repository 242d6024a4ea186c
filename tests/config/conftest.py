"""Fixtures for the settings tests: a project folder, the user's file and the trust store."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from zengine_jupyter.config import TrustStore

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty project folder (with .git, so it is its own root) and its .z-engine/."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / ".z-engine").mkdir()
    return root


@pytest.fixture
def user_file(zengine_home: Path) -> Path:
    """The user's settings.toml (ZENGINE_HOME is also the user config folder in tests)."""
    return zengine_home / "settings.toml"


@pytest.fixture
def project_file(project: Path) -> Path:
    return project / ".z-engine" / "settings.toml"


@pytest.fixture
def local_file(project: Path) -> Path:
    return project / ".z-engine" / "settings.local.toml"


@pytest.fixture
def store() -> TrustStore:
    return TrustStore()


@pytest.fixture(autouse=True)
def _no_env_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("ZENGINE_MODEL", "ZENGINE_PROVIDER", "ZENGINE_BASE_URL", "ZENGINE_SHELL"):
        monkeypatch.delenv(var, raising=False)
