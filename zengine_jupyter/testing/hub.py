"""A real JupyterHub for the multi-user browser test: configurable-http-proxy (npm, from
``tests/fixtures/npm``), a shared password, and the LocalProcessSpawner starting each user's
single-user JupyterLab as that Unix user from this environment (the engine installed once for
everyone). The hub runs as root, as on a real host; see :mod:`.unix_users` for how the users
reach an install that sits under root's home."""

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
from pathlib import Path
from typing import TYPE_CHECKING

import httpx

from zengine_jupyter.testing._net import free_port
from zengine_jupyter.testing.unix_users import REPO, shared_view

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

    from zengine_jupyter.testing.unix_users import UnixUser

__all__ = ["CHP", "Hub", "hub_lab_settings", "require_proxy", "running_hub"]

CHP = REPO / "tests/fixtures/npm/node_modules/.bin/configurable-http-proxy"
"""Where ``scripts/test`` installs configurable-http-proxy (``npm ci`` in tests/fixtures/npm)."""

_LAB_SETTINGS = {
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false",
                                                     "checkForUpdates": False},
    "@jupyterlab/lsp-extension/plugin": {"activate": "off"},
}  # fmt: skip
"""The same quiet lab as :func:`zengine_jupyter.testing.lab.running_lab` (no news pop-up over
the page, no language-server dialog)."""


@dataclass(frozen=True)
class Hub:
    """A running hub: its public URL, shared password, state folder and log."""

    url: str
    password: str
    state: Path
    log: Path
    started_s: float
    """Seconds from launch until the hub answered."""


def require_proxy() -> Path:  # noqa: RET503 (pytest.skip raises)
    """configurable-http-proxy's path; skips (fails under CI=true) when it is not installed."""
    import pytest

    from zengine_jupyter.testing.components import in_ci, require_component

    require_component("node")
    if CHP.exists():
        return CHP
    reason = "configurable-http-proxy is not installed; run: npm ci --prefix tests/fixtures/npm"
    if in_ci():
        pytest.fail(f"CI=true and {reason}", pytrace=False)
    pytest.skip(reason)


def hub_lab_settings(user: UnixUser) -> None:
    """Write the user's JupyterLab settings (owned by them) for a quiet lab."""
    folder = user.home / ".jupyter/lab/user-settings"
    for name, values in _LAB_SETTINGS.items():
        path = folder / f"{name}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    for path in [user.home / ".jupyter", *(user.home / ".jupyter").rglob("*")]:
        os.chown(path, user.uid, user.gid)


def _config(users: Sequence[UnixUser], password: str, ports: tuple[int, int, int],
            state: Path, environment: Mapping[str, str]) -> str:  # fmt: skip
    port, hub_port, api_port = ports
    values: dict[str, dict[str, object]] = {
        "JupyterHub": {
            "ip": "127.0.0.1", "port": port, "hub_ip": "127.0.0.1", "hub_port": hub_port,
            "authenticator_class": "shared-password", "spawner_class": "localprocess",
            "db_url": f"sqlite:///{state / 'jupyterhub.sqlite'}",
            "cookie_secret_file": str(state / "cookie_secret"),
            "pid_file": str(state / "jupyterhub.pid"), "cleanup_servers": True,
        },
        "ConfigurableHTTPProxy": {
            "command": [str(CHP)], "api_url": f"http://127.0.0.1:{api_port}",
            "pid_file": str(state / "proxy.pid"), "should_start": True,
        },
        "SharedPasswordAuthenticator": {
            "user_password": password, "allowed_users": sorted(u.name for u in users),
        },
        "Spawner": {
            "cmd": [sys.executable, "-m", "jupyterhub.singleuser"],
            "default_url": "/lab", "start_timeout": 120, "http_timeout": 120,
            "environment": dict(environment),
            "args": ["--ServerApp.jpserver_extensions={'jupyter_lsp': False}",
                     "--LabApp.expose_app_in_browser=True"],
        },
    }  # fmt: skip
    lines = [f"c.{cls}.{key} = {value!r}" for cls, table in values.items()
             for key, value in table.items()]  # fmt: skip
    return "\n".join(lines) + "\n"


@contextlib.contextmanager
def running_hub(
    state: Path,
    users: Sequence[UnixUser],
    environment: Mapping[str, str] | None = None,
    timeout: float = 120.0,
) -> Iterator[Hub]:
    """Start JupyterHub (as root) for ``users``; ``state`` (root's alone, 0700) keeps its
    database, secrets and log. ``environment`` is added to each single-user server's."""
    require_proxy()
    state.mkdir(parents=True, exist_ok=True)
    state.chmod(0o700)
    password = secrets.token_hex(8)
    ports = (free_port(), free_port(), free_port())
    env = {"PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1", **(environment or {})}
    if os.environ.get("JUPYTER_PATH"):  # a helper's own panel build (see the BRIEF)
        env.setdefault("JUPYTER_PATH", os.environ["JUPYTER_PATH"])
    config = state / "jupyterhub_config.py"
    config.write_text(_config(users, password, ports, state, env))
    log = state / "jupyterhub.log"
    argv = shared_view([sys.executable, "-m", "jupyterhub", "-f", str(config)])
    hub_env = {**os.environ, "PYTHONPATH": str(REPO), "PATH": f"{Path(sys.executable).parent}:"
               + os.environ.get("PATH", "/usr/bin:/bin")}  # fmt: skip
    began = time.monotonic()
    with log.open("wb") as out:
        process = subprocess.Popen(  # a long-lived server: host.run is for bounded commands
            argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env=hub_env, cwd=state, start_new_session=True,
        )  # fmt: skip
    url = f"http://127.0.0.1:{ports[0]}"
    try:
        _wait_ready(url, process, log, timeout)
        yield Hub(url, password, state, log, time.monotonic() - began)
    finally:
        _stop(process)


def _wait_ready(url: str, process: subprocess.Popen[bytes], log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"jupyterhub exited ({process.returncode}):\n{log.read_text()}")
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(f"{url}/hub/api/", timeout=5.0).status_code == 200:
                return
        time.sleep(0.3)
    raise TimeoutError(f"jupyterhub did not answer within {timeout} s:\n{log.read_text()}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM the hub (it stops the users' servers and the proxy), SIGKILL its group after
    30 s."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
