"""Issue 22 acceptance 3: on a fresh clone, ``./scripts/run`` serves the quickstart, a browser
opens it (JupyterLab's news pop-up stays away: it would cover the panel's Send button), and the
lint step of ``./scripts/test`` still passes afterwards: what browsing leaves behind
(``.virtual_documents/``, ``.ipynb_checkpoints/``) is ignored by git and ruff.

Fast: the clone reuses this machine's virtual environment (``ZENGINE_VENV``) and skips the
install (``ZENGINE_SKIP_INSTALL=1``), which ``scripts/run`` and ``scripts/test`` both honour.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from zengine_jupyter.testing import free_port, stop_process_group
from zengine_jupyter.testing.lab import chromium_page

pytestmark = [pytest.mark.e2e]

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / ".ci-artifacts" / "run-in-a-clone"
NEWS = "Would you like to get notified about official Jupyter news?"


def _env(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "ZENGINE_SKIP_INSTALL": "1",
        "ZENGINE_VENV": sys.prefix,
        "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),  # a new user: no lab settings yet
        "JUPYTER_DATA_DIR": str(tmp_path / "data"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
        "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "workspaces"),
    }


def _wait_for_lab(base: str, headers: dict[str, str], proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if httpx.get(f"{base}/api/status", headers=headers, timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.3)
    raise AssertionError("JupyterLab did not start")


@pytest.mark.timeout(300)
def test_run_then_browse_then_lint_in_a_fresh_clone(tmp_path: Path) -> None:
    started = time.monotonic()
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True, timeout=120)
    env = _env(tmp_path)
    port, token = free_port(), "clone-test-token"
    log_path = tmp_path / "lab.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [str(clone / "scripts" / "run"), "--no-browser", f"--port={port}",
             "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}"],
            cwd=clone, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    base, headers = f"http://127.0.0.1:{port}", {"Authorization": f"token {token}"}
    try:
        try:
            _wait_for_lab(base, headers, proc)
        except AssertionError:
            raise AssertionError(log_path.read_text()) from None
        page_html = httpx.get(f"{base}/lab/tree/notebooks/quickstart.ipynb", headers=headers,
                              timeout=10).text  # fmt: skip
        config = re.search(r"\"disabledExtensions\":\s*\[[^\]]*\]", page_html)
        assert config is not None
        assert "@jupyterlab/apputils-extension:announcements" in config.group(0)
        with chromium_page(ARTIFACTS, last="quickstart.png") as page:
            page.goto(f"{base}/lab/tree/notebooks/quickstart.ipynb?token={token}")
            page.locator(".jp-Notebook .jp-Cell", has_text="%load_ext zengine").first.wait_for()
            page.wait_for_timeout(3000)  # the news question would have appeared by now
            assert page.get_by_text(NEWS).count() == 0
    finally:
        stop_process_group(proc)

    # what browsing may leave (jupyter-lsp's shadow copies: not Python ruff could parse)
    shadow = clone / ".virtual_documents" / "notebooks" / "quickstart.ipynb"
    shadow.parent.mkdir(parents=True, exist_ok=True)
    shadow.write_text("%load_ext zengine\n%%agent\nSay hello\nimport os,sys\n")
    lint = subprocess.run([str(clone / "scripts" / "test"), "--lint"], cwd=clone, env=env,
                          capture_output=True, text=True, timeout=180, check=False)  # fmt: skip
    assert lint.returncode == 0, lint.stdout + lint.stderr
    assert "ruff format --check" in lint.stderr
    status = subprocess.run(["git", "-C", str(clone), "status", "--porcelain"],
                            capture_output=True, text=True, check=True)  # fmt: skip
    assert status.stdout == "", status.stdout
    elapsed = time.monotonic() - started
    assert elapsed < 240, f"took {elapsed:.0f} s"
