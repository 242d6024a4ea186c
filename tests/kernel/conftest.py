from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from zengine_jupyter.testing import ProviderServer
from zengine_jupyter.testing.kernel import KernelHarness, agent_kernel


@pytest.fixture
def kernel(project: Path, server: ProviderServer) -> Iterator[KernelHarness]:
    """A kernel (zengine loaded) in tests/conftest.py's ``project``, talking to its ``server``."""
    with agent_kernel(project) as harness:
        yield harness
