"""binder/ alone makes a working environment, built the way repo2docker builds it as far as
that runs here.

repo2docker (mybinder.org) sees binder/environment.yml, so it takes the conda build pack: it
installs that file with micromamba from conda-forge before copying the repository in (no local
pip requirement in it, so it is a cached layer), ignores requirements.txt, installs apt.txt, then
runs binder/postBuild from the repository root and serves through binder/start.

Here there is no conda, micromamba or Docker (and no network but the package registries'), so:
the environment file is read the way repo2docker reads it (a mapping; the python version its
frozen base environment is chosen by; conda-forge's nodejs bounded at >= 20.19, the panel build's
need; no local pip requirement) and the nodejs bound is checked against this machine's node, which
stands in for conda-forge's; then a fresh virtual environment stands in for the conda one
(NB_PYTHON_PREFIX first on PATH), binder/postBuild installs the repository into it (its panel
already built) and checks it, and JupyterLab started through binder/start has the panel enabled,
answers /api/status and opens on the quickstart. The README's Binder badge opens that quickstart.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import yaml  # type: ignore[import-untyped]  # PyYAML (jupyter_events needs it), no stubs
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from zengine_jupyter.testing import free_port, stop_process_group

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
BINDER = REPO / "binder"
QUICKSTART = "notebooks/quickstart.ipynb"
PANEL_NODE = Version("20.19")  # the oldest node the panel build (jlpm build:prod) runs on
# repo2docker's conda build pack: the python pin that picks its frozen base environment
PYTHON_PIN = re.compile(r"python\s*=+\s*([\d\.]*)")


def _environment() -> dict[str, Any]:
    """binder/environment.yml as repo2docker loads it (a mapping, else it refuses the repo)."""
    env = yaml.safe_load((BINDER / "environment.yml").read_text())
    assert isinstance(env, dict), "repo2docker: environment.yml should contain a dictionary"
    return env


def _node_spec(env: dict[str, Any]) -> SpecifierSet:
    """The version range of conda-forge's nodejs the environment asks for."""
    (dep,) = [d for d in env["dependencies"] if isinstance(d, str) and d.startswith("nodejs")]
    return SpecifierSet(dep.removeprefix("nodejs").replace(" ", ""))


def test_environment_yml_is_what_repo2docker_installs() -> None:
    env = _environment()
    names = {p.name for p in BINDER.iterdir()}
    assert names >= {"environment.yml", "postBuild", "start", "apt.txt"}
    # with environment.yml repo2docker ignores requirements.txt: one source of truth
    assert "requirements.txt" not in names
    assert env["channels"][0] == "conda-forge"
    pins = [m.group(1) for d in env["dependencies"] if isinstance(d, str)
            if (m := PYTHON_PIN.match(d))]  # fmt: skip
    assert pins == ["3.11"]  # repo2docker has a frozen base environment for 3.11
    node = _node_spec(env)
    assert PANEL_NODE in node
    assert Version("20.18.3") not in node
    assert Version("18.19.1") not in node  # Ubuntu 24.04's nodejs: never needed
    # no local pip requirement: repo2docker installs the file before the repository is copied
    pip = [d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d]
    assert pip == []
    # the base image's node is not used any more: apt.txt does not ask for it
    apt = (BINDER / "apt.txt").read_text().split()
    assert "nodejs" not in apt
    assert "npm" not in apt


def test_readme_binder_badge_opens_the_quickstart() -> None:
    readme = (REPO / "README.md").read_text()
    badge = re.search(r"\[!\[Binder\]\(https://mybinder\.org/badge_logo\.svg\)\]\((\S+)\)", readme)
    assert badge, "README.md has no Binder badge"
    url = urlsplit(badge.group(1))
    assert url.netloc == "mybinder.org"
    assert re.fullmatch(r"/v2/gh/[^/]+/zengine-jupyter/HEAD", url.path), url.path
    assert parse_qs(url.query)["urlpath"] == [f"lab/tree/{QUICKSTART}"]
    assert (REPO / QUICKSTART).is_file()
    assert f"/lab/tree/{QUICKSTART}" in (BINDER / "start").read_text()


def test_postbuild_refuses_an_old_node_before_building(tmp_path: Path) -> None:
    """Without a built panel, postBuild stops with what to install when node is < 20.19."""
    fake = tmp_path / "bin"
    fake.mkdir()
    node = fake / "node"
    node.write_text('#!/bin/sh\n[ "$1" = --version ] && echo v18.19.1 && exit 0\nexit 1\n')
    node.chmod(0o755)
    repo = tmp_path / "repo"
    repo.mkdir()  # a checkout without zengine_jupyter/labextension/
    env = {"PATH": f"{fake}:/usr/bin:/bin"}
    done = subprocess.run([str(BINDER / "postBuild")], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=60, check=False)  # fmt: skip
    assert done.returncode == 1
    assert "node >= 20.19 is needed" in done.stderr
    assert "v18.19.1" in done.stderr


def _run(argv: list[str], env: dict[str, str], timeout: float) -> str:
    done = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)  # fmt: skip
    assert done.returncode == 0, f"{argv}\n{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_binder_files_make_a_working_lab(tmp_path: Path) -> None:
    if not (REPO / "zengine_jupyter" / "labextension" / "package.json").exists():
        pytest.skip("the JupyterLab panel is not built (./scripts/test builds it)")
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, check=False)
    if node.returncode == 0:  # this machine's node stands in for conda-forge's
        assert Version(node.stdout.strip().lstrip("v")) in _node_spec(_environment())
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
        # pip keeps its cache and compiles nothing up front: byte-compiling every installed
        # package is most of the install's time and none of what is tested here
        "ZENGINE_BINDER_FAST": "1",
    }
    built = _run([str(BINDER / "postBuild")], env, 600)
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
