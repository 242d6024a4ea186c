"""The agent's messages in the side panel, in real JupyterLab and Debian Chromium, against a
real kernel and the local model provider (issue 27, items 1-4 of the chat messages' part).

1. A code block in the agent's answer: "Insert below" / "Insert above" lands it in the active
   notebook as a new cell right below / above the active cell (index and source read from the
   notebook's model; a ```markdown fence makes a markdown cell), and "Replace selection"
   replaces the range selected in a cell's editor (acceptance 2 of the issue).
2. Diffs: one section per file with its path and +N -M, red / green line grounds, the @@
   header as a context line; a diff longer than 40 lines starts folded.
3. A failed tool call shows its error line on one line without opening the card.
4. Approvals at 250 px: three one-line sentences, JupyterLab's HTMLSelect, the card's box
   holds every child's box; its keys answer only while the focus is in it (a "d" typed in a
   notebook cell stays in the cell), Enter allows once, D denies.

Screenshots go to .ci-artifacts/chat-messages/.
"""

from __future__ import annotations

import contextlib
import re
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

# the first test also starts JupyterLab and the kernel (pytest-timeout counts the setup): on a
# loaded machine that alone took 108 s
pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(300)]

ARTIFACTS = Path(__file__).resolve().parents[2] / ".ci-artifacts" / "chat-messages"
PANEL = "#zengine-panel"
WAIT_MS = 60_000
ORIGINAL = "RATE = 1\n\n\ndef scaled(x):\n    return x * RATE\n"
ANSWER = (
    "Set the rate with:\n\n```python\nRATE = 42\nprint(RATE)\n```\n\n"
    "and note it:\n\n```markdown\n# Rate notes\n```\n"
)
BIG = "".join(f"line_{i} = {i}\n" for i in range(50))


@pytest.fixture(scope="module")
def provider() -> Iterator[ProviderServer]:
    with provider_in_thread() as server:
        yield server


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory, provider: ProviderServer) -> Iterator[LabServer]:
    require_component("node")  # the panel is built by scripts/test
    root = tmp_path_factory.mktemp("project")
    (root / ".git").mkdir()
    (root / "pipeline.py").write_text(ORIGINAL)
    write_notebook(root / "analysis.ipynb", "a = 1\nb = 2", "c = 3", "d = 4")
    home = tmp_path_factory.mktemp("zengine-home")
    write_provider_settings(home, provider.base_url)
    env = {"ZENGINE_HOME": str(home), "ANTHROPIC_API_KEY": "test-key"}
    with running_lab(root, tmp_path_factory.mktemp("lab-state"), env=env) as server:
        yield server


@pytest.fixture(scope="module")
def page(lab: LabServer) -> Iterator[Any]:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    with chromium_page(ARTIFACTS, size=(1400, 900), timeout_ms=WAIT_MS, last="last.png") as tab:
        tab.goto(lab.lab_url("analysis.ipynb"))
        tab.wait_for_selector(".jp-Notebook .jp-Cell")
        with contextlib.suppress(PlaywrightTimeout):  # a "Select Kernel" dialog, sometimes
            tab.locator(".jp-Dialog .jp-mod-accept").click(timeout=3_000)
        tab.locator('.jp-SideBar.jp-mod-right .lm-TabBar-tab[data-id="zengine-panel"]').click()
        tab.wait_for_selector(f'{PANEL}[data-state="connected"][data-subscribed="true"]')
        yield tab


# ---------------------------------------------------------------- helpers


def _panel(page: Any, selector: str) -> Any:
    return page.locator(f"{PANEL} {selector}")


def _send(page: Any, text: str) -> None:
    _panel(page, ".jp-zengine-input").fill(text)
    _panel(page, ".jp-zengine-send").click()


def _wait_turn_over(page: Any) -> None:
    page.wait_for_selector(f'{PANEL} .jp-zengine-turnbar[data-running="false"]')


_NOTEBOOK = """() => {
  const panel = Array.from(window.jupyterapp.shell.widgets('main'))
    .find(w => w.context && w.context.path === 'analysis.ipynb');
  const nb = panel.content;
  return {active: nb.activeCellIndex,
          cells: nb.model.sharedModel.cells.map(c => [c.cell_type, c.getSource()])};
}"""


def _notebook(page: Any) -> dict[str, Any]:
    """The notebook's active cell index and its cells as (type, source), from its model."""
    return dict(page.evaluate(_NOTEBOOK))


def _cell(page: Any, index: int) -> Any:
    return page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell").nth(index)


def _select_cell(page: Any, index: int) -> None:
    """Make cell ``index`` the active one (command mode, no editor focused)."""
    _cell(page, index).locator(".jp-InputPrompt").click()
    page.wait_for_function(
        f"() => ({_NOTEBOOK})().active === {index}",
    )


_BOXES_INSIDE = """node => {
  const outer = node.getBoundingClientRect();
  const out = [];
  for (const child of node.querySelectorAll('*')) {
    const box = child.getBoundingClientRect();
    if (!box.width && !box.height) continue;
    if (box.left < outer.left - 0.5 || box.right > outer.right + 0.5
        || box.top < outer.top - 0.5 || box.bottom > outer.bottom + 0.5) {
      out.push(`${child.tagName}.${child.className} ${JSON.stringify(box)}`);
    }
  }
  return out;
}"""

_ONE_LINE = """node => {
  const style = getComputedStyle(node);
  const line = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.4;
  return node.getBoundingClientRect().height <= 1.6 * line;
}"""


def _rgb(colour: str) -> tuple[float, float, float]:
    """A computed colour (``rgb()`` or ``color(srgb ...)``, what color-mix gives) as 0..1."""
    values = [float(v) for v in re.findall(r"[\d.]+", colour)[:3]]
    scale = 1.0 if colour.startswith("color(") else 255.0
    r, g, b = (v / scale for v in values)
    return r, g, b


# ---------------------------------------------------------------- the tests


def test_insert_and_replace_a_code_block_from_the_answer(
    page: Any, provider: ProviderServer
) -> None:
    provider.add(Reply(text=(ANSWER,)))
    provider.title_replies.append(Reply.answer("The rate"))
    _send(page, "How do I set the rate?")
    _wait_turn_over(page)
    answer = _panel(page, ".jp-zengine-item-assistant").last
    blocks = answer.locator("pre.jp-zengine-code")
    blocks.nth(1).locator(".jp-zengine-code-tools").wait_for()
    python, markdown = blocks.nth(0), blocks.nth(1)
    tools = python.locator(".jp-zengine-code-tools button")
    assert tools.count() == 4  # Copy, Insert above, Insert below, Replace
    assert all(tools.nth(i).get_attribute("aria-label") for i in range(4))
    assert python.get_attribute("data-lang") == "python"
    # nothing selected in any editor yet: Replace says why, and does nothing
    replace = python.locator(".jp-zengine-replace")
    replace.hover()
    assert replace.get_attribute("aria-disabled") == "true"
    assert "Replace the selection:" in (replace.get_attribute("title") or "")

    # Insert below the active cell (the second): a code cell at index 2, the active one now
    _select_cell(page, 1)
    python.locator(".jp-zengine-insert-below").click()
    page.wait_for_function(f"() => ({_NOTEBOOK})().cells.length === 4")
    notebook = _notebook(page)
    assert notebook["cells"][2] == ["code", "RATE = 42\nprint(RATE)"]
    assert notebook["active"] == 2
    assert [c[1] for c in notebook["cells"]] == ["a = 1\nb = 2", "c = 3", "RATE = 42\nprint(RATE)",
                                                 "d = 4"]  # fmt: skip

    # Insert above the active cell (the first): a ```markdown fence makes a markdown cell
    _select_cell(page, 0)
    markdown.locator(".jp-zengine-insert-above").click()
    page.wait_for_function(f"() => ({_NOTEBOOK})().cells.length === 5")
    notebook = _notebook(page)
    assert notebook["cells"][0] == ["markdown", "# Rate notes"]
    assert notebook["active"] == 0
    assert notebook["cells"][1] == ["code", "a = 1\nb = 2"]
    _cell(page, 0).locator(".jp-RenderedMarkdown h1", has_text="Rate notes").wait_for()

    # Replace selection: select "1" in the cell "a = 1\nb = 2" (now the second cell)
    editor = _cell(page, 1).locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+Home")
    page.keyboard.press("End")
    page.keyboard.press("Shift+ArrowLeft")
    replace.hover()  # the tools ask again when the pointer comes near
    page.wait_for_function(
        "node => node.getAttribute('aria-disabled') === 'false'", arg=replace.element_handle()
    )
    assert "cell 2 of analysis.ipynb" in (replace.get_attribute("title") or "")
    replace.click()
    page.wait_for_function(f"() => ({_NOTEBOOK})().cells[1][1] !== 'a = 1\\nb = 2'")
    assert _notebook(page)["cells"][1] == ["code", "a = RATE = 42\nprint(RATE)\nb = 2"]
    page.screenshot(path=str(ARTIFACTS / "1-inserted-and-replaced.png"))


def test_diffs_failed_call_and_approval_at_250px(
    page: Any, lab: LabServer, provider: ProviderServer
) -> None:
    edit = {"path": "pipeline.py", "old_string": "RATE = 1", "new_string": "RATE = 2\nSPEED = 3"}
    provider.add(
        Reply(text=("Looking.",), tool_calls=(ScriptedToolCall("Read", {"path": "missing.py"}),)),
        Reply(text=("That one, then.",),
              tool_calls=(ScriptedToolCall("Read", {"path": "pipeline.py"}),)),
        Reply(tool_calls=(ScriptedToolCall("Edit", edit),)),
        Reply(tool_calls=(ScriptedToolCall("Write", {"path": "big.py", "content": BIG}),)),
        Reply(text=("Done.",)),
    )  # fmt: skip
    _send(page, "Raise the rate")

    # 3. the failed read: its error line on one line under the summary, the card closed
    failed = _panel(page, '.jp-zengine-tool[data-tool="Read"][data-state="failed"]').last
    failed.wait_for()
    error = failed.locator(".jp-zengine-tool-error")
    assert error.is_visible()
    assert error.inner_text().strip()
    assert error.evaluate(_ONE_LINE)
    assert error.get_attribute("title")
    assert failed.get_attribute("data-open") in (None, "false")
    assert not failed.locator(".jp-zengine-tool-body").is_visible()

    # 2. the edit's diff: path, +2 -1, red / green grounds, the @@ header as context
    approval = _panel(page, ".jp-zengine-approval").last
    approval.locator(".jp-zengine-allow").wait_for()
    card = _panel(page, '.jp-zengine-tool[data-tool="Edit"]').last
    section = card.locator(".jp-zengine-diff-section")
    assert section.get_attribute("data-path") == "pipeline.py"
    assert section.locator(".jp-zengine-diff-counts").inner_text().split() == ["+2", "\u22121"]
    assert section.get_attribute("data-open") == "true"
    added = _rgb(card.locator(".jp-zengine-diff-add").first.evaluate(
        "n => getComputedStyle(n).backgroundColor"))  # fmt: skip
    removed = _rgb(card.locator(".jp-zengine-diff-del").first.evaluate(
        "n => getComputedStyle(n).backgroundColor"))  # fmt: skip
    assert added[1] > max(added[0], added[2]), f"added lines are not green: {added}"
    assert removed[0] > removed[1], f"removed lines are not red: {removed}"
    assert card.locator(".jp-zengine-diff-hunk").first.inner_text().startswith("@@")

    # 4. the approval at 250 px: three one-line sentences, every box inside the card's box
    panel = page.locator(PANEL)
    node = panel.element_handle()
    before = node.evaluate("node => node.style.width")
    node.evaluate("node => { node.style.width = '250px' }")
    try:
        page.wait_for_function("node => node.getBoundingClientRect().width <= 251", arg=node)
        lines = approval.locator(".jp-zengine-approval-text > *")
        assert lines.count() == 3
        for i in range(3):
            assert lines.nth(i).evaluate(_ONE_LINE), lines.nth(i).inner_text()
        assert lines.nth(0).inner_text().startswith("Allow Edit")
        assert lines.nth(2).inner_text().startswith('"Always" adds ')
        select_box = approval.locator(".jp-HTMLSelect.jp-DefaultStyle.jp-FormGroup-content")
        assert select_box.locator("select.jp-zengine-layer-select").count() == 1
        outside = approval.evaluate(_BOXES_INSIDE)
        card_outside = card.evaluate(_BOXES_INSIDE)
        panel.screenshot(path=str(ARTIFACTS / "2-approval-250px.png"))
        assert not outside, f"past the approval's box at 250 px: {outside}"
        assert not card_outside, f"past the tool card's box at 250 px: {card_outside}"
    finally:
        node.evaluate("(node, width) => { node.style.width = width }", before)

    # its keys: a "d" typed in a notebook cell is the cell's; Enter in the prompt allows once
    editor = _cell(page, 2).locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+End")
    page.keyboard.type("d")
    assert approval.locator(".jp-zengine-allow").count() == 1  # still asking
    assert _notebook(page)["cells"][2][1].endswith("d")
    approval.evaluate("node => node.focus()")
    page.keyboard.press("Enter")
    approval.locator(".jp-zengine-approval-outcome", has_text="Allowed once.").wait_for()
    # the Write of 50 lines: its diff starts folded; D denies it, the diff stays
    _panel(page, ".jp-zengine-approval").nth(1).wait_for()
    write = _panel(page, ".jp-zengine-approval").last
    write.locator(".jp-zengine-allow").wait_for()
    big = _panel(page, '.jp-zengine-tool[data-tool="Write"]').last
    big_section = big.locator(".jp-zengine-diff-section")
    assert big_section.get_attribute("data-open") == "false"
    assert big_section.locator(".jp-zengine-diff-counts").inner_text().split() == ["+50", "\u22120"]
    big_section.locator(".jp-zengine-diff-head").click()
    assert big_section.get_attribute("data-open") == "true"
    write.evaluate("node => node.focus()")
    page.keyboard.press("d")
    write.locator(".jp-zengine-approval-outcome", has_text="Denied by you").wait_for()
    _wait_turn_over(page)
    assert (lab.root / "pipeline.py").read_text().startswith("RATE = 2\nSPEED = 3\n")
    assert not (lab.root / "big.py").exists()
    page.locator(PANEL).screenshot(path=str(ARTIFACTS / "3-diffs-and-answers.png"))
