"""A real JupyterLab server and Debian Chromium, for browser tests.

``running_lab`` starts ``jupyter lab`` (or, with ``app="notebook"``, Notebook 7) from this
environment on a free 127.0.0.1 port with a token, a temporary root, its own settings and
workspaces folders (the news / update pop-up turned off, so it never covers a screenshot), and
stops it by its process id. The page exposes the application as ``window.jupyterapp`` (its
commands, e.g. ``apputils:change-theme``).
``launch_chromium`` starts the Debian ``chromium`` through Playwright (its own browser
download does not work here) with the flags the environment notes list.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import httpx

from zengine_jupyter.testing._net import free_port

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping
    from pathlib import Path

__all__ = [
    "CHROMIUM_ARGS",
    "LabServer",
    "chromium_page",
    "collaboration_env",
    "launch_chromium",
    "running_lab",
    "write_notebook",
]

CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)

_QUIET_NOTIFICATIONS = {"fetchNews": "false", "checkForUpdates": False}

App = Literal["jupyterlab", "notebook"]
_APP_CLASS: dict[App, str] = {"jupyterlab": "LabApp", "notebook": "JupyterNotebookApp"}


@dataclass(frozen=True)
class LabServer:
    """One running JupyterLab (or Notebook 7): its URL, token, root folder and server log."""

    url: str
    token: str
    root: Path
    log: Path
    app: App = "jupyterlab"

    def lab_url(self, path: str = "", *, reset: bool = True) -> str:
        """The page for ``path`` (a file under the root, or "" for the launcher)."""
        target = f"{self.url}/lab/tree/{path}" if path else f"{self.url}/lab"
        query = f"token={self.token}" + ("&reset" if reset else "")
        return f"{target}?{query}"

    def notebook_url(self, path: str) -> str:
        """Notebook 7's page for the notebook ``path`` (a file under the root)."""
        return f"{self.url}/notebooks/{path}?token={self.token}"

    def api(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """Call the server's REST API (``/api/...``) with the token."""
        headers = {"Authorization": f"token {self.token}"}
        with httpx.Client(timeout=30.0) as client:
            return client.request(method, f"{self.url}{path}", headers=headers, **kwargs)


@contextlib.contextmanager
def running_lab(
    root: Path,
    state: Path,
    env: Mapping[str, str] | None = None,
    timeout: float = 90.0,
    *,
    app: App = "jupyterlab",
    collaborative: bool = False,
    python: str = sys.executable,
) -> Iterator[LabServer]:
    """Start JupyterLab (``app="notebook"``: Notebook 7) serving ``root``; ``state`` holds its
    settings, workspaces and log. Real-time collaboration stays off unless ``collaborative``
    (with jupyter-collaboration importable: see :func:`collaboration_env`), so installing it
    changes no other browser test. ``python`` is the interpreter whose environment serves the
    lab (another venv's, e.g. the jupyter-ai one: :mod:`zengine_jupyter.testing.jai`)."""
    port = free_port()
    token = secrets.token_hex(16)
    settings = state / "user-settings"
    apputils = settings / "@jupyterlab" / "apputils-extension"
    notification = apputils / "notification.jupyterlab-settings"
    notification.parent.mkdir(parents=True, exist_ok=True)
    notification.write_text(json.dumps(_QUIET_NOTIFICATIONS))
    # JupyterLab's own language-server client stays off: the agent runs its own servers, and a
    # server's "redundant open" message (a shared notebook opened twice) is a modal dialog
    lsp = settings / "@jupyterlab" / "lsp-extension" / "plugin.jupyterlab-settings"
    lsp.parent.mkdir(parents=True, exist_ok=True)
    lsp.write_text(json.dumps({"activate": "off"}))
    config = state / "jupyter_server_config.json"
    config.write_text(json.dumps({"ServerApp": {"jpserver_extensions": {"jupyter_lsp": False}}}))
    (state / "workspaces").mkdir(parents=True, exist_ok=True)
    log = state / f"jupyter-{app.removeprefix('jupyter')}.log"  # jupyter-lab.log
    cls = _APP_CLASS[app]
    argv = [
        python, "-m", app, "--no-browser", "--allow-root",
        "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
        f"--{cls}.user_settings_dir={settings}", f"--{cls}.workspaces_dir={state / 'workspaces'}",
        f"--{cls}.expose_app_in_browser=True", f"--config={config}",
        f"--YDocExtension.disable_rtc={not collaborative}",
    ]  # fmt: skip
    # jupyter-collaboration's stores (installed, it loads even with RTC off): in the lab's
    # state folder, not .jupyter_ystore.db in the cwd or file_id_manager.db in ~/.local
    argv += [f"--SQLiteYStore.db_path={state / 'ystore.db'}",
             f"--BaseFileIdManager.db_path={state / 'file_id.db'}"]  # fmt: skip
    with log.open("wb") as out:
        process = subprocess.Popen(  # a long-lived server: host.run is for bounded commands
            argv,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env={**os.environ, **(env or {})},
            start_new_session=True,
        )
    server = LabServer(url=f"http://127.0.0.1:{port}", token=token, root=root, log=log, app=app)
    try:
        _wait_ready(server, process, timeout)
        yield server
    finally:
        _stop(process)


def collaboration_env() -> dict[str, str] | None:
    """The environment a lab needs to load jupyter-collaboration: {} when it is installed
    beside JupyterLab; the paths of a private prefix (``ZENGINE_COLLAB_PREFIX``, else
    ``.collab`` at the repository root, made by ``pip install --prefix .collab
    jupyter-collaboration``) so the shared environment keeps RTC out; None when neither."""
    import importlib.util
    from pathlib import Path

    if importlib.util.find_spec("jupyter_collaboration") is not None:
        return {}
    repo = Path(__file__).resolve().parents[2]
    prefix = Path(os.environ.get("ZENGINE_COLLAB_PREFIX") or repo / ".collab")
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    site = prefix / "lib" / version / "site-packages"
    if not (site / "jupyter_collaboration").is_dir():
        return None

    def joined(name: str, first: Path) -> str:
        return os.pathsep.join(p for p in (str(first), os.environ.get(name, "")) if p)

    return {
        "PYTHONPATH": joined("PYTHONPATH", site),
        "JUPYTER_PATH": joined("JUPYTER_PATH", prefix / "share" / "jupyter"),
        "JUPYTER_CONFIG_PATH": joined("JUPYTER_CONFIG_PATH", prefix / "etc" / "jupyter"),
    }


def _wait_ready(server: LabServer, process: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            output = server.log.read_text()
            raise RuntimeError(f"{server.app} exited ({process.returncode}):\n{output}")
        with contextlib.suppress(httpx.TransportError):
            if server.api("GET", "/api/status").status_code == 200:
                return
        time.sleep(0.2)
    raise TimeoutError(f"{server.app} did not answer within {timeout} s:\n{server.log.read_text()}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM the server's process group (it and its kernels), SIGKILL after 10 s."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def write_notebook(path: Path, *sources: str) -> Path:
    """Write a Python 3 notebook at ``path`` with one code cell per source; its path."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}  # fmt: skip
    nb.cells = [nbformat.v4.new_code_cell(source) for source in sources]
    nbformat.write(nb, path)
    return path


def launch_chromium(playwright: Any, executable: str) -> Any:
    """A headless Debian Chromium driven by Playwright (``playwright.sync_api`` object)."""
    return playwright.chromium.launch(
        executable_path=executable, headless=True, args=list(CHROMIUM_ARGS)
    )


@contextlib.contextmanager
def chromium_page(
    artifacts: Path,
    *,
    size: tuple[int, int] = (1280, 900),
    timeout_ms: int = 60_000,
    last: str | None = None,
) -> Iterator[Any]:
    """A page of a fresh headless Debian Chromium (Playwright's sync API), closed afterwards.

    Skips (or, under ``CI=true``, fails) when chromium is missing; ``artifacts`` is created for
    the test's screenshots; ``last`` names a screenshot of what the page showed at the end."""
    from playwright.sync_api import sync_playwright

    from zengine_jupyter.testing.components import require_component

    chromium = require_component("chromium")
    artifacts.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright, chromium)
        try:
            page = browser.new_page(viewport={"width": size[0], "height": size[1]})
            page.set_default_timeout(timeout_ms)
            yield page
            if last is not None:
                page.screenshot(path=str(artifacts / last))
        finally:
            browser.close()
