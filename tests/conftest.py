from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from zengine_jupyter.testing import ProviderServer, provider_in_thread, write_provider_settings

pytest_plugins = ["zengine_jupyter.testing.pytest_plugin"]

# tests/fixtures holds small real projects (with their own test files) that tests copy and run.
collect_ignore = ["fixtures"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project folder ``proj`` with a two-line ``pipeline.py`` (``RATE = 1``); a folder's or
    a module's own ``project`` fixture overrides this one."""
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pipeline.py").write_text("RATE = 1\nprint('rate', RATE)\n")
    return root


@pytest.fixture
def server(zengine_home: Path) -> Iterator[ProviderServer]:
    """A provider fake on its own thread (for sync tests and kernels), and the user's settings
    pointing at it; script it with ``server.add(Reply(...))``."""
    with provider_in_thread() as srv:
        write_provider_settings(zengine_home, srv.base_url)
        yield srv
