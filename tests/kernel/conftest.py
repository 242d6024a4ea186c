from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from zengine_jupyter.testing import ProviderServer, provider_in_thread
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
        (zengine_home / "settings.toml").write_text(
            f'[provider]\nkind = "anthropic"\nbase_url = "{srv.base_url}"\n'
            '[model]\nmain = "claude-sonnet-4-6"\n'
        )
        yield srv


@pytest.fixture
def kernel(project: Path, server: ProviderServer) -> Iterator[KernelHarness]:
    env = {"JPY_SESSION_NAME": str(project / "analysis.ipynb"), "ANTHROPIC_API_KEY": "test-key"}
    with running_kernel(project, env=env) as harness:
        loaded = harness.execute("%load_ext zengine")
        assert loaded.status == "ok", loaded.text
        yield harness
