"""The kernel's widgets in real JupyterLab (Debian Chromium): the status widget (an anywidget
over a raw comm) with its trust banner and a click on "Trust", the turn widget's verification
badge with its check behind it and Interrupt gone once the turn ended, and the rewind widget
putting a file back.

Screenshots go to .ci-artifacts/widgets/.
"""

from __future__ import annotations

import contextlib
import json
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
from zengine_jupyter.testing.components import require_component
from zengine_jupyter.testing.lab import launch_chromium, running_lab

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ARTIFACTS = Path(__file__).resolve().parents[2] / ".ci-artifacts" / "widgets"
WAIT_MS = 30_000
_CELLS = ("%load_ext zengine", "%%agent --wait --yes\nSet RATE to 2\n", "%agent /rewind")


@pytest.fixture
def server() -> Iterator[ProviderServer]:
    with provider_in_thread() as srv:
        yield srv


def _shot(page: Any, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def test_status_trust_badge_and_rewind_in_a_browser(
    tmp_path: Path, server: ProviderServer, zengine_home: Path
) -> None:
    chromium = require_component("chromium")
    require_component("node")  # JupyterLab's own extensions are built by scripts/test
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright

    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / "pipeline.py").write_text("RATE = 1\n")
    (root / ".z-engine").mkdir()
    (root / ".z-engine" / "settings.toml").write_text('[permissions]\nallow = ["Bash(ls)"]\n')
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}  # fmt: skip
    nb.cells = [nbformat.v4.new_code_cell(source) for source in _CELLS]
    nbformat.write(nb, root / "w.ipynb")
    write_provider_settings(
        zengine_home,
        server.base_url,
        '[verification]\nmode = "auto"\nauto_checks = ["unit"]\n'
        '[[verification.checks]]\nid = "unit"\nkind = "test"\n'
        'command = ["python3", "-c", "print(\'1 passed\')"]\n',
    )
    edit = {"path": "pipeline.py", "old_string": "RATE = 1", "new_string": "RATE = 2"}
    server.add(Reply(tool_calls=(ScriptedToolCall("Read", {"path": "pipeline.py"}),)),
               Reply(tool_calls=(ScriptedToolCall("Edit", edit),)),
               Reply(text=("RATE is **2** now.",)))  # fmt: skip
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    env = {"ZENGINE_HOME": str(zengine_home), "ANTHROPIC_API_KEY": "test-key"}
    with running_lab(root, tmp_path / "lab-state", env=env) as lab, sync_playwright() as pw:
        browser = launch_chromium(pw, chromium)
        try:
            page = browser.new_page(viewport={"width": 1300, "height": 1000})
            page.set_default_timeout(WAIT_MS)
            console: list[str] = []
            page.on("console", lambda msg: console.append(f"{msg.type}: {msg.text}"))
            page.goto(lab.lab_url("w.ipynb"))
            page.wait_for_selector(".jp-Notebook .jp-Cell")
            with contextlib.suppress(PlaywrightTimeout):  # a "Select Kernel" dialog, sometimes
                page.locator(".jp-Dialog .jp-mod-accept").click(timeout=5_000)
            page.get_by_text("Python 3 (ipykernel) | Idle").wait_for()
            page.locator(".jp-Cell").nth(0).locator(".jp-InputPrompt").click()
            page.keyboard.press("Shift+Enter")

            # the status widget renders through anywidget's frontend, details on request; the
            # panel attached zengine silently first, yet %load_ext shows the status (one widget)
            banner = page.locator(".jp-zengine-widget-status .jp-zengine-trust")
            banner.wait_for()
            assert "Trust this workspace?" in banner.inner_text()
            assert "permissions.allow (project)" in banner.inner_text()
            assert "not trusted" in page.locator(".jp-zengine-widget-status").inner_text()
            _shot(page, "1-status-banner")
            banner.locator("button", has_text="Trust").click()
            page.locator(".jp-zengine-status-row.jp-zengine-ok >> text=trusted").first.wait_for()
            assert banner.count() == 0
            trusted = json.loads((zengine_home / "trust.json").read_text())
            assert [f["path"] for f in trusted["folders"]] == [str(root.resolve())]

            page.locator(".jp-Cell").nth(1).locator(".jp-InputPrompt").click()
            page.locator(".lm-MenuBar-itemLabel", has_text="Run").click()
            below = "Run Selected Cell and All Below"
            page.locator(".lm-Menu-itemLabel").get_by_text(below, exact=True).click()
            # the turn: the verification pill at its end with the check behind it
            turn = page.locator(".jp-zengine-widget-turn")
            badge = turn.locator(".jp-zengine-badge[data-badge]")
            badge.wait_for()
            assert badge.get_attribute("data-badge") == "verified"
            assert badge.inner_text().startswith("Verified: ")
            turn.locator(".jp-zengine-checks > summary").click()
            check = turn.locator(".jp-zengine-check.jp-zengine-ok")
            assert check.inner_text().startswith("PASS unit (exit 0, ")  # the engine's line
            # no Interrupt once the turn ended; the cost is shown
            assert turn.locator(".jp-zengine-interrupt").is_hidden()
            assert turn.locator(".jp-zengine-cost").inner_text().startswith("turn $")
            assert "RATE is 2 now." in turn.locator(".jp-zengine-item-assistant").inner_text()
            # --yes answered the approval: the prompt says so, without buttons
            answered = turn.locator(".jp-zengine-approval .jp-zengine-approval-outcome")
            assert answered.inner_text() == "Allowed once."
            assert turn.locator(".jp-zengine-approval button").count() == 0
            assert (root / "pipeline.py").read_text() == "RATE = 2\n"

            # the rewind widget lists the message; "Restore code" puts the file back
            point = page.locator(".jp-zengine-widget-rewind .jp-zengine-rewind-point")
            point.wait_for()
            _shot(page, "2-turn-and-rewind")
            point.locator("button", has_text="Restore code").click()
            result = page.locator(".jp-zengine-widget-rewind .jp-zengine-rewind-result")
            result.wait_for()
            assert "restored pipeline.py" in result.inner_text()
            assert (root / "pipeline.py").read_text() == "RATE = 1\n"
            _shot(page, "3-rewound")
        except Exception:
            _shot(page, "failure")
            (ARTIFACTS / "failure-console.txt").write_text("\n".join(console))
            raise
        finally:
            browser.close()
