"""The side panel in real JupyterLab, in Debian Chromium: it connects to the active notebook's
kernel, follows notebook switches, reconnects after a kernel restart and takes the dark theme.

One JupyterLab and one browser serve the whole module. Screenshots go to .ci-artifacts/panel/.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest

import zengine_jupyter
from zengine_jupyter.testing.components import require_component
from zengine_jupyter.testing.lab import LabServer, chromium_page, running_lab

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ARTIFACTS = Path(__file__).resolve().parents[2] / ".ci-artifacts" / "panel"
PANEL = "#zengine-panel"
WAIT_MS = 60_000


def _notebook(path: Path, source: str) -> None:
    nb = nbformat.v4.new_notebook()
    spec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["kernelspec"] = spec
    nb.cells.append(nbformat.v4.new_code_cell(source))
    nbformat.write(nb, path)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("zengine-home")


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory, home: Path) -> Iterator[LabServer]:
    require_component("node")  # the panel is built by scripts/test only where node is
    root = tmp_path_factory.mktemp("lab-root")
    (root / ".git").mkdir()
    _notebook(root / "first.ipynb", "x = 1")
    _notebook(root / "second.ipynb", "y = 2")
    # a project setting that stays withheld until the folder is trusted (the trust banner)
    (root / ".z-engine").mkdir()
    (root / ".z-engine" / "settings.toml").write_text(
        '[[verification.checks]]\nid = "smoke"\nkind = "test"\ncommand = ["true"]\n'
    )
    state = tmp_path_factory.mktemp("lab-state")
    # the panel's own settings: the mode it applies to the chat it follows
    plugin = state / "user-settings" / "zengine-jupyter" / "plugin.jupyterlab-settings"
    plugin.parent.mkdir(parents=True)
    plugin.write_text(json.dumps({"mode": "plan"}))
    env = {"ZENGINE_HOME": str(home)}
    with running_lab(root, state, env=env) as server:
        yield server


@pytest.fixture(scope="module")
def page(lab: LabServer) -> Iterator[Any]:
    with chromium_page(ARTIFACTS, size=(1400, 900), timeout_ms=WAIT_MS) as tab:
        yield tab


def _connected(page: Any, connections: int, notebook: str) -> None:
    """Wait until the panel is connected for the ``connections``-th time, to ``notebook``."""
    page.wait_for_selector(
        f'{PANEL}[data-state="connected"][data-connections="{connections}"]', timeout=WAIT_MS
    )
    assert page.locator(f"{PANEL} .jp-zengine-notebook").inner_text() == notebook
    version = page.locator(f"{PANEL} .jp-zengine-version").inner_text()
    assert version == f"zengine {zengine_jupyter.__version__} in the kernel"


def _shot(page: Any, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def test_panel_connects_follows_notebooks_and_survives_restart(
    lab: LabServer, page: Any, home: Path
) -> None:
    page.goto(lab.lab_url("first.ipynb"))
    page.locator('.jp-SideBar.jp-mod-right .lm-TabBar-tab[data-id="zengine-panel"]').click()
    _connected(page, 1, "first.ipynb")
    # subscribed while the kernel has no chat: an empty conversation, no error
    page.wait_for_selector(f'{PANEL}[data-subscribed="true"]')
    assert page.locator(f"{PANEL} .jp-zengine-item").count() == 0
    _shot(page, "1-connected")

    # a slash command completes from list_commands and its markdown answer is rendered
    page.locator(f"{PANEL} .jp-zengine-input").fill("/he")
    page.wait_for_selector(f'{PANEL} .jp-zengine-completion[data-name="help"]')
    page.locator(f"{PANEL} .jp-zengine-input").press("Tab")
    assert page.locator(f"{PANEL} .jp-zengine-input").input_value() == "/help "
    page.locator(f"{PANEL} .jp-zengine-input").press("Enter")
    answer = page.locator(f"{PANEL} .jp-zengine-item-command-output .jp-RenderedMarkdown")
    answer.wait_for()
    assert "/cost" in answer.inner_text()
    assert page.locator(f"{PANEL} .jp-zengine-item-command").first.inner_text() == "/help"
    # its output once: the engine's "/help" notice for other views is not repeated here
    assert page.locator(f"{PANEL} .jp-zengine-item-notice >> text=/help:").count() == 0
    # nothing runs: no Interrupt button
    assert page.locator(f"{PANEL} .jp-zengine-interrupt").is_hidden()
    # the chat /help opened gets the panel's settings: /mode plan
    page.wait_for_selector(f"{PANEL} .jp-zengine-item-notice >> text=Panel settings: mode: plan")

    # the project's withheld setting: the trust banner, answered with Trust
    banner = page.locator(f"{PANEL} .jp-zengine-trust")
    banner.wait_for()
    assert "Trust this workspace?" in banner.inner_text()
    assert "verification.checks" in banner.locator(".jp-zengine-trust-withheld").inner_text()
    assert banner.get_attribute("data-folder") == str(lab.root)
    _shot(page, "1-trust-banner")
    banner.locator(".jp-zengine-trust-yes").click()
    banner.wait_for(state="detached")
    page.wait_for_selector(f"{PANEL} .jp-zengine-item-notice >> text=trust:")  # every view hears
    trusted = json.loads((home / "trust.json").read_text())
    assert str(lab.root) in json.dumps(trusted)

    # switch notebooks: the panel follows to the second notebook's kernel
    page.locator(".jp-DirListing-content .jp-DirListing-itemText >> text=second.ipynb").dblclick()
    _connected(page, 2, "second.ipynb")
    _shot(page, "2-second-notebook")

    # and back to the first one (its tab in the main area)
    page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab >> text=first.ipynb").click()
    _connected(page, 3, "first.ipynb")

    # restart the kernel from the notebook toolbar: the panel says so, then reconnects
    visible = ".jp-NotebookPanel:not(.lm-mod-hidden)"
    page.locator(f'{visible} jp-button[data-command="notebook:restart-kernel"]').click()
    page.locator(".jp-Dialog .jp-mod-accept").click()
    _connected(page, 4, "first.ipynb")
    _shot(page, "3-after-restart")

    # the dark theme: the panel follows JupyterLab's CSS variables
    light = _background(page)
    page.locator(".lm-MenuBar-itemLabel", has_text="Settings").click()
    page.locator(".lm-Menu-itemLabel").get_by_text("Theme", exact=True).hover()
    page.locator(".lm-Menu-itemLabel").get_by_text("JupyterLab Dark", exact=True).click()
    page.wait_for_selector('body[data-jp-theme-light="false"]', state="attached")
    page.wait_for_function(
        f"getComputedStyle(document.querySelector('{PANEL}')).backgroundColor !== '{light}'"
    )
    assert sum(_rgb(_background(page))) < sum(_rgb(light))
    page.wait_for_selector("#jupyterlab-splash", state="detached")  # the theme-change splash
    _shot(page, "4-dark-theme")


def _background(page: Any) -> str:
    return str(page.locator(PANEL).evaluate("node => getComputedStyle(node).backgroundColor"))


def _rgb(css: str) -> tuple[int, ...]:
    return tuple(int(part) for part in css[css.index("(") + 1 : css.index(")")].split(",")[:3])
