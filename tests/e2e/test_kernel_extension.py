"""``%load_ext zengine`` in a real kernel, driven through jupyter_client."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

import zengine_jupyter
from zengine_jupyter.testing.kernel import KernelHarness, running_kernel

pytestmark = pytest.mark.e2e

_PROBE = """
import json, sys
_ip = get_ipython()
print(json.dumps({
    "line": sorted(_ip.magics_manager.magics["line"]),
    "cell": sorted(_ip.magics_manager.magics["cell"]),
    "targets": sorted(_ip.kernel.comm_manager.targets),
    "modules": sorted(m for m in sys.modules
                      if m.split(".")[0] in ("mcp", "httpx", "httpcore", "zengine_jupyter")),
}))
"""


def _probe(kernel: KernelHarness) -> dict[str, list[str]]:
    result = kernel.execute(_PROBE)
    assert result.status == "ok", result.text
    return dict(json.loads(result.text.strip().splitlines()[-1]))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / "analysis").mkdir()
    return root


@pytest.fixture
def kernel(project: Path, zengine_home: Path) -> Iterator[KernelHarness]:
    nb = project / "analysis" / "explore.ipynb"
    env = {"JPY_SESSION_NAME": str(nb)}
    with running_kernel(project / "analysis", env=env) as harness:
        yield harness


def test_load_shows_status_and_unload_removes_everything(
    kernel: KernelHarness, project: Path, zengine_home: Path
) -> None:
    before = _probe(kernel)
    assert "agent" not in before["cell"]
    assert "zengine" not in before["targets"]

    loaded = kernel.execute("%load_ext zengine")
    assert loaded.status == "ok", loaded.text
    status = loaded.text
    assert f"zengine {zengine_jupyter.__version__}" in status
    assert f"project {project}" in status
    assert "notebook explore.ipynb" in status
    assert f"data {zengine_home}" in status
    assert any("zengine-status" in html for html in loaded.mime("text/html"))

    during = _probe(kernel)
    assert "agent" in during["cell"]
    assert "zengine" in during["line"]
    assert "zengine" in during["targets"]

    unloaded = kernel.execute("%unload_ext zengine")
    assert unloaded.status == "ok", unloaded.text
    after = _probe(kernel)
    assert after["line"] == before["line"]
    assert after["cell"] == before["cell"]
    assert after["targets"] == before["targets"]

    again = kernel.execute("%%agent\nplease do something\n")
    assert again.status == "error"
    assert "Cell magic `%%agent` not found" in again.text


def test_loading_imports_nothing_heavy(kernel: KernelHarness) -> None:
    assert kernel.execute("%load_ext zengine").status == "ok"
    modules = _probe(kernel)["modules"]
    heavy = [
        m
        for m in modules
        if m.split(".")[0] in ("mcp", "httpx", "httpcore", "pydantic", "ipywidgets", "anywidget")
        or m.startswith(
            (
                "zengine_jupyter.integrations.lsp",
                "zengine_jupyter.integrations.mcp",
                "zengine_jupyter.engine",
                "zengine_jupyter.kernel._widget",
            )
        )
    ]
    assert heavy == []
    # the probe itself sees zengine's kernel layer, so the check is looking at the right place
    assert "zengine_jupyter.kernel" in modules


def test_agent_without_a_message_says_so(kernel: KernelHarness) -> None:
    assert kernel.execute("%load_ext zengine").status == "ok"
    result = kernel.execute("%%agent\n\n")
    assert result.status == "ok"
    assert "nothing to send" in result.text
    # still nothing heavy: no turn was started
    assert "mcp" not in {m.split(".")[0] for m in _probe(kernel)["modules"]}


def test_the_comm_target_greets_with_its_version(kernel: KernelHarness) -> None:
    assert kernel.execute("%load_ext zengine").status == "ok"
    comm_id = "panel-1"
    kernel.send_comm("comm_open", {"comm_id": comm_id, "target_name": "zengine", "data": {}})
    (hello,) = kernel.comm_messages(comm_id)
    version = zengine_jupyter.__version__
    assert hello == {"v": 1, "kind": "hello", "version": version, "id": None}
    request = {"v": 1, "kind": "hello", "id": "p7", "client_version": version}
    kernel.send_comm("comm_msg", {"comm_id": comm_id, "data": request})
    (reply,) = kernel.comm_messages(comm_id)
    assert reply == {"v": 1, "kind": "hello", "version": version, "id": "p7"}
    # the panel's first messages import no MCP and no HTTP client
    assert not {m.split(".")[0] for m in _probe(kernel)["modules"]} & {"mcp", "httpx"}
