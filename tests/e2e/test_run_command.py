"""The README's run command starts JupyterLab serving the quickstart notebook."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from zengine_jupyter.testing import free_port, stop_process_group

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]


def _readme_run_command() -> str:
    readme = (REPO / "README.md").read_text()
    block = readme.split("```bash", 1)[1].split("```", 1)[0]
    first = block.strip().splitlines()[0]
    return first.split("#", 1)[0].strip()


def test_readme_names_the_run_script() -> None:
    assert _readme_run_command() == "./scripts/run"


def test_run_command_serves_the_quickstart(tmp_path: Path) -> None:
    port, token = free_port(), "zengine-test-token"
    env = {
        **os.environ,
        "ZENGINE_SKIP_INSTALL": "1",
        "ZENGINE_VENV": sys.prefix,
        "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
        "JUPYTER_DATA_DIR": str(tmp_path / "data"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
        "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "workspaces"),
    }
    log = (tmp_path / "lab.log").open("wb")
    proc = subprocess.Popen(
        [
            str(REPO / _readme_run_command()),
            "--no-browser",
            f"--port={port}",
            "--ServerApp.ip=127.0.0.1",
            f"--IdentityProvider.token={token}",
        ],
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    headers = {"Authorization": f"token {token}"}
    try:
        status = None
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                status = httpx.get(f"{base}/api/status", headers=headers, timeout=2)
                break
            except httpx.TransportError:
                time.sleep(0.3)
        assert status is not None, (tmp_path / "lab.log").read_text()
        assert status.status_code == 200
        assert "started" in status.json()

        notebook = httpx.get(
            f"{base}/api/contents/notebooks/quickstart.ipynb", headers=headers, timeout=10
        )
        assert notebook.status_code == 200
        cells = notebook.json()["content"]["cells"]
        assert any("%load_ext zengine" in cell["source"] for cell in cells)

        page = httpx.get(f"{base}/lab/tree/notebooks/quickstart.ipynb", headers=headers, timeout=10)
        assert page.status_code == 200
        assert "jupyter-config-data" in page.text
        # the URL it prints and the server's root both land on the quickstart
        landing = httpx.get(f"{base}/", headers=headers, timeout=10)
        assert landing.status_code == 302
        assert landing.headers["location"].startswith("/lab/tree/notebooks/quickstart.ipynb")
        printed = (tmp_path / "lab.log").read_text()
        assert f"127.0.0.1:{port}/lab/tree/notebooks/quickstart.ipynb?token=" in printed

        unauthorised = httpx.get(f"{base}/api/contents/notebooks", timeout=10)
        assert unauthorised.status_code == 403
    finally:
        stop_process_group(proc)
        log.close()
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{base}/api/status", headers=headers, timeout=2)
