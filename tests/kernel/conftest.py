from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from zengine_jupyter.testing import ProviderServer, provider_in_thread, write_provider_settings
from zengine_jupyter.testing.kernel import KernelHarness, running_kernel


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pipeline.py").write_text("RATE = 1\nprint('rate', RATE)\n")
    return root


@pytest.fixture
def server(zengine_home: Path) -> Iterator[ProviderServer]:
    with provider_in_thread() as srv:
        write_provider_settings(zengine_home, srv.base_url)
        yield srv


@pytest.fixture
def kernel(project: Path, server: ProviderServer) -> Iterator[KernelHarness]:
    env = {"JPY_SESSION_NAME": str(project / "analysis.ipynb"), "ANTHROPIC_API_KEY": "test-key"}
    with running_kernel(project, env=env) as harness:
        loaded = harness.execute("%load_ext zengine")
        assert loaded.status == "ok", loaded.text
        yield harness
