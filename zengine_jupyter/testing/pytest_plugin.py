"""pytest plugin: every test gets its own ``ZENGINE_HOME`` and never touches the real home,
nor models.dev (``ZENGINE_CATALOG_URL=off``: chats use the bundled catalog snapshot; a test of
the refresh sets the variable to its own server).

Enable with ``pytest_plugins = ["zengine_jupyter.testing.pytest_plugin"]`` in a conftest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from zengine_jupyter.config import HOME_ENV
from zengine_jupyter.llm import CATALOG_URL_ENV

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["zengine_home"]


@pytest.fixture(autouse=True)
def zengine_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh, empty data folder for this test, exported as ``$ZENGINE_HOME``."""
    home = tmp_path_factory.mktemp("zengine-home")
    monkeypatch.setenv(HOME_ENV, str(home))
    monkeypatch.setenv(CATALOG_URL_ENV, "off")
    # jupyter_core warns (an error under filterwarnings=error) unless told to use platformdirs.
    monkeypatch.setenv("JUPYTER_PLATFORM_DIRS", "1")
    return home
