"""binder/ alone makes a working environment: a fresh virtual environment gets
binder/requirements.txt (the repository as a local path, its JupyterLab panel already built),
binder/postBuild passes, and JupyterLab started through binder/start has the panel enabled,
answers /api/status and opens on the quickstart."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from zengine_jupyter.testing import free_port, stop_process_group

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
BINDER = REPO / "binder"


def _run(argv: list[str], env: dict[str, str], timeout: float) -> str:
    done = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)  # fmt: skip
    assert done.returncode == 0, f"{argv}\n{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


@pytest.mark.timeout(600)
def test_binder_files_make_a_working_lab(tmp_path: Path) -> None:
    if not (REPO / "zengine_jupyter" / "labextension" / "package.json").exists():
        pytest.skip("the JupyterLab panel is not built (./scripts/test builds it)")
    assert {p.name for p in BINDER.iterdir()} >= {"requirements.txt", "postBuild", "start"}
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    home = tmp_path / "home"
    env = {
        "PATH": f"{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(os.environ.get("HOME", home)),  # the pip cache lives there
        "VIRTUAL_ENV": str(venv),
        "ZENGINE_HOME": str(tmp_path / "zengine-home"),
        "JUPYTER_CONFIG_DIR": str(tmp_path / "jupyter-config"),
        "JUPYTER_DATA_DIR": str(tmp_path / "jupyter-data"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "jupyter-runtime"),
        "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "workspaces"),
    }
    # --no-compile: what the lab imports is compiled when imported; byte-compiling every
    # installed package up front is most of the install's time and none of what is tested here
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-compile"]
    _run([*pip, "-r", str(BINDER / "requirements.txt")], env, 480)
    built = _run([str(BINDER / "postBuild")], env, 120)
    assert "zengine-jupyter" in built
    assert "enabled" in built
    listed = _run([str(venv / "bin" / "jupyter"), "labextension", "list"], env, 60)
    line = next(x for x in listed.splitlines() if "zengine-jupyter" in x)
    assert "enabled" in line
    assert "OK" in line
    assert str(venv) in listed  # installed in the new environment, not found elsewhere

    port, token = free_port(), "binder-test-token"
    log = (tmp_path / "lab.log").open("wb")
    proc = subprocess.Popen(
        [str(BINDER / "start"), str(venv / "bin" / "jupyter"), "lab", "--no-browser",
         "--allow-root", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={REPO}"],
        cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    base, headers = f"http://127.0.0.1:{port}", {"Authorization": f"token {token}"}
    try:
        status = None
        deadline = time.monotonic() + 90
        while status is None and time.monotonic() < deadline and proc.poll() is None:
            try:
                status = httpx.get(f"{base}/api/status", headers=headers, timeout=2)
            except httpx.TransportError:
                time.sleep(0.3)
        assert status is not None, (tmp_path / "lab.log").read_text()
        assert status.status_code == 200
        landing = httpx.get(f"{base}/", headers=headers, timeout=10)
        assert landing.status_code == 302
        target = urlsplit(landing.headers["location"]).path
        assert target.endswith("/lab/tree/notebooks/quickstart.ipynb"), target
        page = httpx.get(f"{base}/lab/tree/notebooks/quickstart.ipynb", headers=headers,
                         timeout=10)  # fmt: skip
        assert page.status_code == 200
        assert "zengine-jupyter" in page.text  # the panel is among the federated extensions
    finally:
        stop_process_group(proc)
        log.close()
