"""pytest plugin: every test gets its own ``ZENGINE_HOME`` and never touches the real home.

Enable with ``pytest_plugins = ["zengine_jupyter.testing.pytest_plugin"]`` in a conftest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from zengine_jupyter.config import HOME_ENV

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["zengine_home"]


@pytest.fixture(autouse=True)
def zengine_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh, empty data folder for this test, exported as ``$ZENGINE_HOME``."""
    home = tmp_path_factory.mktemp("zengine-home")
    monkeypatch.setenv(HOME_ENV, str(home))
    # jupyter_core warns (an error under filterwarnings=error) unless told to use platformdirs.
    monkeypatch.setenv("JUPYTER_PLATFORM_DIRS", "1")
    return home
