"""Acceptance 2: an ``%%agent`` cell in real JupyterLab, in Debian Chromium.

The notebook loads zengine and asks, in an ``%%agent`` cell, for an edit; the model is the local
provider server (on a thread of this process, outside the kernel). In the browser: the streamed
text and the approval prompt appear in the cell's output, a click on "Allow once" lets the edit
happen (checked on disk), and the verification badge follows (the model runs the user's check
through Verify, which the user's settings allow, so the turn ends Verified).

Screenshots go to .ci-artifacts/agent/ only (a test never rewrites a tracked file);
``scripts/update-screenshots`` copies agent-cell.png to docs/images/, the picture the README shows.

The turn widget is built from the panel's component library (labextension/src/widgets/turn.ts
over src/ui/), so it is found by the panel's class names: ``jp-zengine-widget-turn``, the
conversation's items (``jp-zengine-item-assistant``), the tool card (``jp-zengine-tool``), the
approval prompt (``jp-zengine-approval``, ``jp-zengine-allow``, its outcome line), the badge
(``jp-zengine-badge`` with ``data-badge``) and the turn's result line.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest

from zengine_jupyter.testing import (
    ProviderServer,
    Reply,
    ScriptedToolCall,
    provider_in_thread,
    write_provider_settings,
)
from zengine_jupyter.testing.lab import LabServer, chromium_page, running_lab

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / ".ci-artifacts" / "agent"
WAIT_MS = 60_000
TURN = ".jp-OutputArea-output .jp-zengine-widget-turn"
BADGE = ".jp-zengine-badge[data-badge]"
PROMPT = "Set RATE to 2 in pipeline.py"
STREAMED = "I'll change RATE in pipeline.py, then run the tests."
FINAL = "Done: **RATE** is 2 now and the tests pass."


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "pipeline.py").write_text("RATE = 1\n\n\ndef scaled(x):\n    return x * RATE\n")
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}  # fmt: skip
    nb.cells.append(nbformat.v4.new_code_cell("%load_ext zengine"))
    nb.cells.append(nbformat.v4.new_code_cell(f"%%agent\n{PROMPT}"))
    nbformat.write(nb, root / "analysis.ipynb")
    return root


@pytest.fixture
def server(zengine_home: Path) -> Iterator[ProviderServer]:
    """The model, and the user's settings: it, a check of their own, and Verify allowed."""
    check = [sys.executable, "-c", "import pipeline; assert pipeline.scaled(3) == 6"]
    with provider_in_thread() as srv:
        write_provider_settings(
            zengine_home,
            srv.base_url,
            '[permissions]\nallow = ["Verify"]\n'
            '[[verification.checks]]\nid = "tests"\nkind = "test"\n'
            f"command = {check!r}\n".replace("'", '"'),
        )
        yield srv


@pytest.fixture
def lab(project: Path, server: ProviderServer, tmp_path: Path) -> Iterator[LabServer]:
    state = tmp_path / "lab-state"
    state.mkdir()
    with running_lab(project, state, env={"ANTHROPIC_API_KEY": "test-key"}) as running:
        yield running


@pytest.fixture
def page(lab: LabServer) -> Iterator[Any]:
    with chromium_page(ARTIFACTS, size=(1280, 860), timeout_ms=WAIT_MS, last="last.png") as tab:
        yield tab


def _shot(page: Any, name: str) -> Path:
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def test_agent_cell_streams_asks_and_verifies_in_the_browser(
    lab: LabServer, page: Any, project: Path, server: ProviderServer
) -> None:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    edit = {"path": "pipeline.py", "old_string": "RATE = 1", "new_string": "RATE = 2"}
    server.add(
        Reply(
            text=(STREAMED[:20], STREAMED[20:]),
            tool_calls=(ScriptedToolCall("Read", {"path": "pipeline.py"}),),
        ),
        Reply(tool_calls=(ScriptedToolCall("Edit", edit),)),
        Reply(tool_calls=(ScriptedToolCall("Verify", {"checks": ["tests"]}),)),
        Reply(text=(FINAL,)),
    )
    page.goto(lab.lab_url("analysis.ipynb"))
    page.wait_for_selector(".jp-Notebook .jp-Cell")
    with contextlib.suppress(PlaywrightTimeout):  # a "Select Kernel" dialog, sometimes
        page.locator(".jp-Dialog .jp-mod-accept").click(timeout=3_000)
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for()  # the kernel is up: run now
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").click()
    page.locator(".lm-Menu-itemLabel").get_by_text("Run All Cells", exact=True).click()

    # the turn streams into the cell's output and stops at the approval prompt
    turn = page.locator(TURN)
    turn.locator(".jp-zengine-approval .jp-zengine-allow").wait_for()
    assistant = turn.locator(".jp-zengine-item-assistant .jp-zengine-body").first
    assert assistant.inner_text().strip() == STREAMED
    prompt = turn.locator(".jp-zengine-approval")
    assert prompt.inner_text().startswith("Allow Edit: pipeline.py?")
    assert "+RATE = 2" in turn.locator(".jp-zengine-tool").last.inner_text()  # the proposed diff
    assert (project / "pipeline.py").read_text().startswith("RATE = 1\n")
    # the notebook stays usable while the turn waits: the cell has finished executing
    assert page.locator(".jp-Notebook .jp-InputPrompt").nth(1).inner_text().strip() == "[2]:"
    _shot(page, "1-approval")

    turn.locator(".jp-zengine-approval .jp-zengine-allow").click()
    turn.locator(".jp-zengine-approval-outcome").wait_for()
    badge = turn.locator(BADGE).last
    badge.wait_for()
    assert badge.get_attribute("data-badge") == "verified"
    assert badge.inner_text().startswith("Verified: ")
    result = turn.locator(".jp-zengine-turn-result", has_text="Changed pipeline.py.")
    result.wait_for()
    assert result.inner_text().startswith("Turn completed.")
    assert "RATE is 2 now" in turn.locator(".jp-zengine-item-assistant").last.inner_text()
    assert (project / "pipeline.py").read_text().startswith("RATE = 2\n")
    _shot(page, "2-verified")
    cell = page.locator(".jp-Notebook .jp-Cell").nth(1)  # the %%agent cell and its output
    cell.screenshot(path=str(ARTIFACTS / "agent-cell.png"))
