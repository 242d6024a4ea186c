from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from zengine_jupyter.testing import ProviderServer, provider_in_thread
from zengine_jupyter.testing.kernel import ExecResult, KernelHarness, running_kernel

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


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


def widget_id(result: ExecResult) -> str:
    views = [
        out["content"]["data"][WIDGET_MIME]["model_id"]
        for out in result.outputs
        if out["msg_type"] == "display_data" and WIDGET_MIME in out["content"]["data"]
    ]
    assert len(views) == 1, result.text
    return str(views[0])


def events_of(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for m in messages if m.get("kind") == "events" for e in m["events"]]


def has_event(kind: str) -> Any:
    return lambda msg: any(e["kind"] == kind for e in msg.get("events", ()))
