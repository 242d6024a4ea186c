"""The cell widgets in Notebook 7, not only in JupyterLab (issue 20, acceptance 3).

A real ``jupyter notebook`` (Notebook 7) in Debian Chromium, against the local model provider:
``%load_ext zengine`` shows the status widget (its details loaded from the kernel); a
``%%agent`` cell's turn widget streams markdown rendered by JupyterLab's rendermime (a
``<strong>`` inside the assistant's text: the labextension's ``zengine-jupyter:markdown``
plugin runs in Notebook 7 too), shows the Edit's tool card with its diff, and takes a click on
"Allow once" (the file changes on disk); ``%agent /rewind`` lists the message and "Restore
code" puts the file back.

Screenshots go to .ci-artifacts/notebook7/.
"""

from __future__ import annotations

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
from zengine_jupyter.testing.lab import LabServer, chromium_page, running_lab, write_notebook

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ARTIFACTS = Path(__file__).resolve().parents[2] / ".ci-artifacts" / "notebook7"
WAIT_MS = 60_000
PROMPT = "Set RATE to 2 in pipeline.py"
_CELLS = ("%load_ext zengine", f"%%agent\n{PROMPT}", "%agent /rewind")
_KERNEL_IDLE = (
    "window.jupyterapp?.shell.currentWidget?.sessionContext?.session?.kernel?.status === 'idle'"
)


@pytest.fixture(scope="module")
def provider() -> Iterator[ProviderServer]:
    with provider_in_thread() as server:
        yield server


@pytest.fixture(scope="module")
def notebook(
    tmp_path_factory: pytest.TempPathFactory, provider: ProviderServer
) -> Iterator[LabServer]:
    require_component("node")  # the widgets are built by scripts/test
    pytest.importorskip("notebook", minversion="7")
    root = tmp_path_factory.mktemp("project")
    (root / ".git").mkdir()
    (root / "pipeline.py").write_text("RATE = 1\n")
    write_notebook(root / "nb7.ipynb", *_CELLS)
    home = tmp_path_factory.mktemp("zengine-home")
    write_provider_settings(home, provider.base_url)
    env = {"ZENGINE_HOME": str(home), "ANTHROPIC_API_KEY": "test-key"}
    state = tmp_path_factory.mktemp("notebook-state")
    with running_lab(root, state, env=env, app="notebook") as server:
        yield server


@pytest.fixture(scope="module")
def page(notebook: LabServer) -> Iterator[Any]:
    with chromium_page(ARTIFACTS, size=(1280, 1100), timeout_ms=WAIT_MS, last="last.png") as tab:
        tab.goto(notebook.notebook_url("nb7.ipynb"))
        tab.wait_for_selector(".jp-Notebook .jp-Cell")
        tab.wait_for_function(_KERNEL_IDLE)  # keys pressed before that may go nowhere
        yield tab


def _cell(page: Any, index: int) -> Any:
    return page.locator(".jp-Notebook .jp-Cell").nth(index)


def _run(page: Any, index: int) -> None:
    _cell(page, index).locator(".jp-InputPrompt").click()
    page.keyboard.press("Control+Enter")


def _shot(page: Any, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def test_status_turn_and_rewind_widgets_render_in_notebook_7(
    page: Any, notebook: LabServer, provider: ProviderServer
) -> None:
    pipeline = notebook.root / "pipeline.py"
    edit = {"path": "pipeline.py", "old_string": "RATE = 1", "new_string": "RATE = 2"}
    provider.add(
        Reply(text=("I'll change **RATE** ", "in `pipeline.py`."),
              tool_calls=(ScriptedToolCall("Read", {"path": "pipeline.py"}),)),
        Reply(tool_calls=(ScriptedToolCall("Edit", edit),)),
        Reply(text=("Done: **RATE** is 2 now.",)),
    )  # fmt: skip
    assert page.evaluate("document.body.dataset.notebook") == "notebooks"  # Notebook 7, not Lab

    # the status widget, its details from the kernel
    _run(page, 0)
    status = _cell(page, 0).locator(".jp-zengine-widget.jp-zengine-widget-status")
    status.locator(".jp-zengine-status-label", has_text="model").wait_for()
    assert status.locator(".jp-zengine-status-head").inner_text().startswith("zengine ")
    assert "127.0.0.1" in status.inner_text()

    # the turn widget: markdown through rendermime, the Edit's card and diff, Allow once
    _run(page, 1)
    turn = _cell(page, 1).locator(".jp-zengine-widget.jp-zengine-widget-turn")
    allow = turn.locator(".jp-zengine-approval .jp-zengine-allow")
    allow.wait_for()
    first = turn.locator(".jp-zengine-item-assistant").first
    assert first.locator(".jp-RenderedMarkdown strong").inner_text() == "RATE"
    assert first.locator(".jp-RenderedMarkdown code").inner_text() == "pipeline.py"
    card = turn.locator('.jp-zengine-tool[data-tool="Edit"]')
    assert card.locator(".jp-zengine-tool-summary").inner_text() == "pipeline.py"
    assert "+RATE = 2" in card.locator(".jp-zengine-diff").inner_text()
    assert pipeline.read_text() == "RATE = 1\n"
    _shot(page, "1-approval")
    allow.click()
    turn.locator(".jp-zengine-approval-outcome", has_text="Allowed once.").wait_for()
    result = turn.locator(".jp-zengine-turn-result", has_text="Turn completed.")
    result.wait_for()
    assert "Changed pipeline.py." in result.inner_text()
    assert pipeline.read_text() == "RATE = 2\n"
    last = turn.locator(".jp-zengine-item-assistant").last
    assert last.locator(".jp-RenderedMarkdown strong").inner_text() == "RATE"
    assert card.get_attribute("data-state") == "done"
    _shot(page, "2-turn-done")

    # the rewind widget puts the file back
    _run(page, 2)
    rewind = _cell(page, 2).locator(".jp-zengine-widget.jp-zengine-widget-rewind")
    point = rewind.locator(".jp-zengine-rewind-point", has_text=PROMPT)
    point.locator("button", has_text="Restore code").click()
    outcome = rewind.locator(".jp-zengine-rewind-result")
    outcome.wait_for()
    assert outcome.locator(".jp-zengine-rewind-result-title").inner_text() == (
        f"Rewound the files to before “{PROMPT}”."
    )
    assert "restored pipeline.py" in outcome.inner_text()
    assert pipeline.read_text() == "RATE = 1\n"
    _shot(page, "3-rewound")
