"""zengine in a real jupyter-ai, and the same task in jupyter-ai's chat, our panel and our cell
(issue 24, acceptance 2; issue 27, acceptance 4).

The lab runs from jupyter-ai's own venv (``testing.jai``: the latest jupyter-ai and
jupyter-ai-acp-client from PyPI, made by ``scripts/test``; never the project's venv, where they
would change every other lab), with this checkout's panel on ``JUPYTER_PATH``. One lab, one
provider server and one Chromium serve the module.

1. In jupyter-ai's chat the "zengine" persona is offered; a message to it is answered through
   the local provider server; its Edit asks, the approval shows in jupyter-ai's UI and is
   allowed there; util.py changes on disk and the chat has a checkpoint (``zengine
   checkpoints list``).
2. The same task with the same scripted replies in our side panel and in a ``%%agent`` cell.
   Each view is shot at 250 px and 600 px while the approval waits and when the turn is done:
   ``.ci-artifacts/compare-<view>-<width>px[-approval].png`` (view: jupyter-ai, the chat moved
   to jupyter-chat's side panel; panel; cell, in a notebook that wide), and the three side by
   side: ``compare-<width>px-sheet.png``.
"""

from __future__ import annotations

import base64
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
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
from zengine_jupyter.testing.cli import run_cli_sync
from zengine_jupyter.testing.jai import REPO, jai_python, panel_path
from zengine_jupyter.testing.lab import LabServer, chromium_page, running_lab, write_notebook
from zengine_jupyter.testing.lab_views import (
    PANEL,
    cell,
    open_panel,
    run_cell,
    set_notebook_width,
    set_panel_width,
    set_side_width,
    settle,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(420)]

ARTIFACTS = REPO / ".ci-artifacts"
WAIT_MS = 90_000  # the first message starts `zengine acp` in jupyter-ai's server
WINDOW = (1400, 900)
WIDTHS = (600, 250)
ORIGINAL = "RATE = 1\n"
CHANGED = "RATE = 1\n\n\ndef double(x):\n    return 2 * x\n"
TASK = "Add a function double(x) to util.py"
CLOSING = "Added `double(x)` to **util.py**:\n\n```python\ndef double(x):\n    return 2 * x\n```\n"
CHAT = ".jp-chat-widget"
ALLOW_ONCE = ".jp-jupyter-ai-acp-client-permission-btn-allow-once"
NOTEBOOK = ".jp-NotebookPanel:not(.lm-mod-hidden)"
TURN_WIDGET = ".jp-zengine-widget.jp-zengine-widget-turn"


def _task(provider: ProviderServer) -> None:
    """The one task every view runs: read util.py, edit it (asks), say what changed."""
    edit = {"path": "util.py", "old_string": ORIGINAL, "new_string": CHANGED}
    provider.add(
        Reply(text=("I'll read util.py first.",),
              tool_calls=(ScriptedToolCall("Read", {"path": "util.py"}),)),
        Reply(tool_calls=(ScriptedToolCall("Edit", edit),)),
        Reply(text=(CLOSING,)),
    )  # fmt: skip


@dataclass(frozen=True)
class Lab:
    server: LabServer
    home: Path
    env: dict[str, str]


@pytest.fixture(scope="module")
def provider() -> Iterator[ProviderServer]:
    with provider_in_thread() as server:
        yield server


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory, provider: ProviderServer) -> Iterator[Lab]:
    python = jai_python()
    root = tmp_path_factory.mktemp("project")
    (root / ".git").mkdir()
    (root / "util.py").write_text(ORIGINAL)
    write_notebook(root / "compare.ipynb", "%load_ext zengine", f"%%agent\n{TASK}")
    home = tmp_path_factory.mktemp("zengine-home")
    write_provider_settings(home, provider.base_url)
    env = {"ZENGINE_HOME": str(home), "ANTHROPIC_API_KEY": "test-key",
           **panel_path(tmp_path_factory.mktemp("jupyter-path"))}  # fmt: skip
    started = time.monotonic()
    with running_lab(root, tmp_path_factory.mktemp("lab-state"), env=env, python=python) as lab:
        print(f"\njupyter-ai's lab answered after {time.monotonic() - started:.1f} s")
        yield Lab(lab, home, env)


@pytest.fixture(scope="module")
def page(lab: Lab) -> Iterator[Any]:
    with chromium_page(
        ARTIFACTS, size=WINDOW, timeout_ms=WAIT_MS, last="jupyter-ai-last.png"
    ) as tab:
        tab.goto(lab.server.lab_url())
        yield tab


_IN_VIEW = """([node, sel]) => {
  const box = node.getBoundingClientRect();
  const view = document.querySelector(sel).getBoundingClientRect();
  return box.top >= view.top - 1 && box.bottom <= view.bottom + 1;
}"""


def _shoot(page: Any, shown: Any, view: str, width: int, state: str = "") -> None:
    """Shoot the element ``shown`` as ``compare-<view>-<width>px[-<state>].png``."""
    settle(page)
    shown.screenshot(
        path=str(ARTIFACTS / f"compare-{view}-{width}px{'-' * bool(state)}{state}.png")
    )


def _chat_at(page: Any, width: int) -> None:
    set_side_width(page, CHAT, width, side="left", viewport=WINDOW)


def test_zengine_answers_and_asks_in_jupyter_ais_chat(
    page: Any, lab: Lab, provider: ProviderServer
) -> None:
    util = lab.server.root / "util.py"
    page.locator(".jp-LauncherCard[title='Create a chat and open it']").click()
    box = page.locator(f"{CHAT} .jp-chat-input-container textarea[role=combobox]")
    box.wait_for()
    # the persona picker offers zengine (installed through our jupyter_ai.personas entry point)
    page.locator(".jp-jai-personaControls-persona-btn").click()
    page.get_by_role("menuitem", name="zengine").wait_for()
    page.screenshot(path=str(ARTIFACTS / "jupyter-ai-personas.png"))
    page.get_by_role("menuitem", name="zengine").click()
    assert page.locator(".jp-jai-personaControls-persona").inner_text() == "zengine"
    # into jupyter-chat's side panel, where it is as wide as our panel
    page.locator('[data-command="jupyterlab-chat:moveChat"]').click()
    _chat_at(page, WIDTHS[0])

    _task(provider)
    box = page.locator(f"{CHAT} .jp-chat-input-container textarea[role=combobox]")
    box.fill(TASK)
    started = time.monotonic()
    box.press("Enter")
    allow = page.locator(f"{CHAT} {ALLOW_ONCE}")
    allow.wait_for()
    print(f"the approval showed in jupyter-ai's chat {time.monotonic() - started:.1f} s after send")
    assert util.read_text() == ORIGINAL  # nothing is written before the answer
    chat = page.locator(CHAT)
    assert "Edit" in chat.inner_text()
    assert page.locator(f"{CHAT} .jp-jupyter-ai-acp-client-diff-added").count() >= 2
    for width in WIDTHS:
        _chat_at(page, width)
        _shoot(page, chat, "jupyter-ai", width, "approval")
    allow.click()
    page.locator(f"{CHAT} .jp-chat-rendered-message", has_text="Added double(x)").wait_for()
    assert util.read_text() == CHANGED
    for width in WIDTHS[::-1]:
        _chat_at(page, width)
        _shoot(page, chat, "jupyter-ai", width)

    sessions = [p.name for p in (lab.home / "sessions").iterdir() if p.is_dir()]
    assert len(sessions) == 1, sessions
    shown = run_cli_sync("checkpoints", "list", sessions[0], "--json", cwd=lab.server.root,
                         env={**os.environ, **lab.env})  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    rows = json.loads(shown.stdout)
    assert len(rows) == 1, rows  # jupyter-ai puts a note on .ipynb files before the message
    assert rows[0]["prompt"].endswith(TASK)
    assert rows[0]["checkpoint_id"], rows
    assert rows[0]["files"].startswith("checkpoint "), rows  # stored, readable: not missing
    # answered through the local provider server: the message reached it
    assert any(TASK in str(request.body) for request in provider.requests)


def test_the_same_task_in_our_panel_and_our_cell(
    page: Any, lab: Lab, provider: ProviderServer
) -> None:
    util = lab.server.root / "util.py"
    util.write_text(ORIGINAL)
    page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
    page.evaluate(
        "async () => { await window.jupyterapp.commands.execute('docmanager:open',"
        " {path: 'compare.ipynb'}); }"
    )
    page.wait_for_selector(f"{NOTEBOOK} .jp-Cell")
    open_panel(page, dismiss_kernel_dialog=True)

    # the panel: sent from its input
    set_panel_width(page, WIDTHS[0], viewport=WINDOW)
    _task(provider)
    page.locator(f"{PANEL} .jp-zengine-input").fill(TASK)
    page.locator(f"{PANEL} .jp-zengine-send").click()
    allow = page.locator(f"{PANEL} .jp-zengine-approval .jp-zengine-allow").last
    allow.wait_for()
    deny = page.locator(f"{PANEL} .jp-zengine-approval .jp-zengine-deny").last
    for width in WIDTHS:
        set_panel_width(page, width, viewport=WINDOW)
        # the waiting approval stays in view, down to its last button, whatever the width
        page.wait_for_function(
            _IN_VIEW, arg=[deny.element_handle(), f"{PANEL} .jp-zengine-messages"]
        )
        _shoot(page, page.locator(PANEL), "panel", width, "approval")
    allow.click()
    page.wait_for_selector(f'{PANEL} .jp-zengine-turnbar[data-running="false"]')
    assert util.read_text() == CHANGED
    for width in WIDTHS[::-1]:
        set_panel_width(page, width, viewport=WINDOW)
        _shoot(page, page.locator(PANEL), "panel", width)

    # the cell: the same task in a %%agent cell
    util.write_text(ORIGINAL)
    _task(provider)
    run_cell(page, 0)
    cell(page, 0).locator(".jp-zengine-widget-status").wait_for()
    run_cell(page, 1)
    widget = cell(page, 1).locator(TURN_WIDGET)
    allow = widget.locator(".jp-zengine-approval .jp-zengine-allow")
    allow.wait_for()
    for width in WIDTHS:
        set_notebook_width(page, width)
        widget.scroll_into_view_if_needed()
        _shoot(page, cell(page, 1), "cell", width, "approval")
    allow.click()
    widget.locator(".jp-zengine-item-assistant", has_text="Added").wait_for()
    assert util.read_text() == CHANGED
    for width in WIDTHS[::-1]:
        set_notebook_width(page, width)
        widget.scroll_into_view_if_needed()
        _shoot(page, cell(page, 1), "cell", width)
    for width in WIDTHS:
        _sheet(page, width)


def _sheet(page: Any, width: int) -> None:
    """``compare-<width>px-sheet.png``: the three views side by side, waiting for the approval
    (top) and done (bottom), for the closing note."""
    views = ("jupyter-ai", "panel", "cell")
    rows = []
    for state in ("-approval", ""):
        shots = [ARTIFACTS / f"compare-{view}-{width}px{state}.png" for view in views]
        images = "".join(
            f'<td><img src="data:image/png;base64,{base64.b64encode(shot.read_bytes()).decode()}">'
            "</td>"
            for shot in shots
        )
        rows.append(f"<tr>{images}</tr>")
    head = "".join(f"<th>{view}</th>" for view in views)
    html = (f"<style>body{{margin:8px;font:14px sans-serif}}td{{vertical-align:top;"
            f"padding:4px}}img{{border:1px solid #ccc}}</style><table><tr>{head}</tr>"
            f"{''.join(rows)}</table>")  # fmt: skip
    sheet = page.context.browser.new_page()
    try:
        sheet.set_content(html)
        sheet.screenshot(path=str(ARTIFACTS / f"compare-{width}px-sheet.png"), full_page=True)
    finally:
        sheet.close()
