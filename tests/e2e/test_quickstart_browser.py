"""The quickstart as a newcomer runs it: JupyterLab in Debian Chromium, no key, *Run All*.

Every cell runs top to bottom offline (the replay provider plays notebooks/cassettes), each
turn's widget says it is a recording, nothing fails, and the rewind leaves greet.py as it was.
The notebooks run in a temporary copy. Screenshots go to .ci-artifacts/notebooks/.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.notebooks.recording import IGNORED, LIVE_VARS, NOTEBOOKS
from zengine_jupyter.testing.lab import LabServer, chromium_page, running_lab

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ARTIFACTS = Path(__file__).resolve().parents[2] / ".ci-artifacts" / "notebooks"
WAIT_MS = 60_000


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    root = tmp_path / "notebooks"
    shutil.copytree(NOTEBOOKS, root, ignore=IGNORED)
    return root


@pytest.fixture
def lab(copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LabServer]:
    for var in LIVE_VARS:  # offline, as on a machine with no key
        monkeypatch.delenv(var, raising=False)
    state = tmp_path / "lab-state"
    state.mkdir()
    with running_lab(copy, state) as running:
        yield running


@pytest.fixture
def page(lab: LabServer) -> Iterator[Any]:
    with chromium_page(ARTIFACTS, timeout_ms=WAIT_MS, last="quickstart-last.png") as tab:
        yield tab


def test_quickstart_runs_all_offline_in_the_browser(lab: LabServer, page: Any, copy: Path) -> None:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    original = (copy / "greetings" / "greet.py").read_text()
    page.goto(lab.lab_url("quickstart.ipynb"))
    page.wait_for_selector(".jp-Notebook .jp-Cell")
    with contextlib.suppress(PlaywrightTimeout):  # a "Select Kernel" dialog, sometimes
        page.locator(".jp-Dialog .jp-mod-accept").click(timeout=3_000)
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for()
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").click()
    page.locator(".lm-Menu-itemLabel").get_by_text("Run All Cells", exact=True).click()

    # the last code cell prints greet.py after the rewind: when it shows, every cell has run
    last = page.locator(".jp-Notebook .jp-CodeCell").last
    last.locator(".jp-OutputArea-output", has_text='"""Greetings."""').wait_for()
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for()
    page.screenshot(path=str(ARTIFACTS / "quickstart-end.png"))

    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    assert errors.count() == 0, [errors.nth(i).inner_text() for i in range(errors.count())]
    turns = page.locator(".jp-OutputArea-output .jp-zengine-widget-turn")
    assert turns.count() >= 2
    first = turns.first
    first.scroll_into_view_if_needed()
    notice = first.get_by_text("replaying a recorded session from cassettes/quickstart.jsonl")
    notice.first.wait_for()
    first.screenshot(path=str(ARTIFACTS / "quickstart-first-turn.png"))
    assert "shout" not in last.inner_text()
    assert (copy / "greetings" / "greet.py").read_text() == original
