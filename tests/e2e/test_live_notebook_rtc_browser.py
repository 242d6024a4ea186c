"""With jupyter-collaboration, a second page on the same notebook sees the agent's cells
appear (issue 23, acceptance 6).

The lab loads jupyter-collaboration only for this test (``collaboration_env``: a private
prefix, so the shared environment and every other browser test keep RTC off). Page A has the
side panel connected to the notebook's kernel; the agent's NotebookEdit goes to A's document
shared model, which the server's shared document carries to page B, which has no panel at all.
Screenshots of both pages go to .ci-artifacts/live-notebook-rtc/.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from zengine_jupyter.testing import (
    ProviderServer,
    Reply,
    ScriptedToolCall,
    provider_in_thread,
    write_provider_settings,
)
from zengine_jupyter.testing.components import require_component
from zengine_jupyter.testing.lab import (
    LabServer,
    chromium_page,
    collaboration_env,
    running_lab,
    write_notebook,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(300)]

ARTIFACTS = Path(__file__).resolve().parents[2] / ".ci-artifacts" / "live-notebook-rtc"
WAIT_MS = 60_000
PANEL = "#zengine-panel"
NOTEBOOK = "shared.ipynb"
AGENT_CELL = "rtc = 'written by the agent'"


@pytest.fixture(scope="module")
def provider() -> Iterator[ProviderServer]:
    with provider_in_thread() as server:
        yield server


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory, provider: ProviderServer) -> Iterator[LabServer]:
    require_component("node")
    collab = collaboration_env()
    if collab is None:
        pytest.skip("jupyter-collaboration is not installed (pip install --prefix .collab "
                    "jupyter-collaboration)")  # fmt: skip
    root = tmp_path_factory.mktemp("project")
    (root / ".git").mkdir()
    write_notebook(root / NOTEBOOK, "x = 1", "y = 2")
    home = tmp_path_factory.mktemp("zengine-home")
    write_provider_settings(home, provider.base_url, '[permissions]\nallow = ["NotebookEdit"]\n')
    env = {"ZENGINE_HOME": str(home), "ANTHROPIC_API_KEY": "test-key", **collab}
    state = tmp_path_factory.mktemp("lab-state")
    with running_lab(root, state, env=env, collaborative=True) as server:
        yield server


def _open(tab: Any, lab: LabServer) -> None:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    tab.goto(lab.lab_url(NOTEBOOK))
    tab.wait_for_selector(".jp-Notebook .jp-Cell")
    with contextlib.suppress(PlaywrightTimeout):  # a "Select Kernel" dialog, sometimes
        tab.locator(".jp-Dialog .jp-mod-accept").click(timeout=3_000)


def test_a_second_page_sees_the_agents_cells(lab: LabServer, provider: ProviderServer) -> None:
    with chromium_page(ARTIFACTS, size=(1400, 900), timeout_ms=WAIT_MS, last="last.png") as a:
        _open(a, lab)
        assert a.evaluate("() => !!window.jupyterapp.shell.currentWidget.context.model"
                          ".collaborative")  # fmt: skip
        second = a.context.browser.new_context(viewport={"width": 1400, "height": 900})
        b = second.new_page()
        b.set_default_timeout(WAIT_MS)
        _open(b, lab)
        a.bring_to_front()
        a.locator('.jp-SideBar.jp-mod-right .lm-TabBar-tab[data-id="zengine-panel"]').click()
        a.wait_for_selector(f'{PANEL}[data-state="connected"][data-subscribed="true"]')
        provider.add(
            Reply(tool_calls=(ScriptedToolCall("NotebookEdit", {
                "path": NOTEBOOK, "mode": "insert", "index": 1, "source": AGENT_CELL}),)),
            Reply(text=("Added it.",)),
        )  # fmt: skip
        box = a.locator(f"{PANEL} .jp-zengine-input")
        box.fill("Add the cell")
        started = time.monotonic()
        box.press("Enter")
        seen = "text => [...document.querySelectorAll('.jp-Notebook .jp-Cell .cm-content')]" \
            ".some(n => n.textContent.includes(text))"  # fmt: skip
        a.wait_for_function(seen, arg=AGENT_CELL)
        in_a = time.monotonic() - started
        b.wait_for_function(seen, arg=AGENT_CELL)
        in_b = time.monotonic() - started
        print(f"\nRTC: the agent's cell in page A after {in_a:.1f} s, in page B after {in_b:.1f} s")
        sources = "() => window.jupyterapp.shell.currentWidget.content.model.sharedModel" \
            ".cells.map(c => c.getSource())"  # fmt: skip
        assert b.evaluate(sources) == ["x = 1", AGENT_CELL, "y = 2"]
        assert a.evaluate(sources) == b.evaluate(sources)
        a.screenshot(path=str(ARTIFACTS / "page-a.png"))
        b.screenshot(path=str(ARTIFACTS / "page-b.png"))
