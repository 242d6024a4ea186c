"""One turn, two views, the same words (issue 20, acceptance 2).

A ``%%agent`` cell runs one turn in real JupyterLab (Debian Chromium) against the local model
provider, while the side panel follows the kernel's chat live, so the turn is drawn twice by the
one component library (``labextension/src/ui``): in the cell's widget and in the panel. The
turn holds streamed markdown (a bold word and a code block), tool cards with diffs (two Edits),
two approvals (the first allowed in the widget, the second in the panel; the other view shows
the outcome each time), a check that fails and then passes (the badge goes "Checks failed",
then "Verified"), then ``%agent /checks`` publishes a multi-line notice and the turn is
rewound twice: from the panel's Rewind… control, and from the ``%agent /rewind`` widget.

For each element the two views must show the same lines (each line's whitespace normalised,
the line breaks kept, so a notice flattened in one view fails). Screenshots of both views in
the light and the dark theme go to .ci-artifacts/same-turn/; in the dark theme the
conversation's text must be light in both views (theme variables, no hard-coded colours), and
the coloured kinds of text (badge, check line, approval outcome, tool state, diff lines) reach
4.5:1 against their ground in both themes.

Then the panel resumes the chat and draws it again from the log (as after a kernel restart):
it must show the same words as the live cell widget.
"""

from __future__ import annotations

import json
import re
import sys
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
from zengine_jupyter.testing.lab_views import (
    PANEL,
    cell,
    colour,
    contrast,
    luminance,
    open_panel,
    rewind,
    run_cell,
    set_theme,
)
from zengine_jupyter.testing.ui_checks import overflows

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ARTIFACTS = Path(__file__).resolve().parents[2] / ".ci-artifacts" / "same-turn"
WAIT_MS = 60_000
PROMPT = "Make RATE pass the rate check"
ORIGINAL = "RATE = 1\n\n\ndef scaled(x):\n    return x * RATE\n"
FIRST = "I'll set **RATE** in `pipeline.py`:\n\n```python\nRATE = 2\n```\n"
SECOND = "The check wants **3**, not 2."
FINAL = "Done: **RATE** is 3 and the `rate` check passes."
_CELLS = ("%load_ext zengine", f"%%agent\n{PROMPT}", "%agent /checks", "%agent /rewind")
_CHECKPOINT = re.compile(r"\b[0-9a-f]{12}\b")


def _chunks(text: str) -> tuple[str, ...]:
    """``text`` in streamed pieces of a few words."""
    return tuple(re.findall(r"(?:\S+\s*){1,3}", text, flags=re.S))


def _edit(old: str, new: str) -> ScriptedToolCall:
    return ScriptedToolCall("Edit", {"path": "pipeline.py", "old_string": old, "new_string": new})


@pytest.fixture(scope="module")
def provider() -> Iterator[ProviderServer]:
    with provider_in_thread() as server:
        yield server


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory, provider: ProviderServer) -> Iterator[LabServer]:
    require_component("node")  # the panel and the widgets are built by scripts/test
    root = tmp_path_factory.mktemp("project")
    (root / ".git").mkdir()
    (root / "pipeline.py").write_text(ORIGINAL)
    write_notebook(root / "turn.ipynb", *_CELLS)
    home = tmp_path_factory.mktemp("zengine-home")
    check = [sys.executable, "-c", "import pipeline, sys; sys.exit(pipeline.RATE != 3)"]
    write_provider_settings(
        home,
        provider.base_url,
        '[permissions]\nallow = ["Verify"]\n'
        '[[verification.checks]]\nid = "rate"\nkind = "test"\n'
        f"command = {json.dumps(check)}\n",
    )
    env = {"ZENGINE_HOME": str(home), "ANTHROPIC_API_KEY": "test-key"}
    with running_lab(root, tmp_path_factory.mktemp("lab-state"), env=env) as server:
        yield server


@pytest.fixture(scope="module")
def page(lab: LabServer) -> Iterator[Any]:
    with chromium_page(ARTIFACTS, size=(1500, 1300), timeout_ms=WAIT_MS, last="last.png") as tab:
        tab.goto(lab.lab_url("turn.ipynb"))
        tab.wait_for_selector(".jp-Notebook .jp-Cell")
        open_panel(tab, dismiss_kernel_dialog=True)  # a "Select Kernel" dialog, sometimes
        yield tab


# ---------------------------------------------------------------- helpers


def _lines(text: str) -> list[str]:
    """The text's non-empty lines, each with its whitespace normalised."""
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]


def _texts(locator: Any) -> list[list[str]]:
    return [_lines(text) for text in locator.all_inner_texts()]


def _same(widget: Any, panel: Any, selector: str) -> list[list[str]]:
    """The lines of every ``selector`` element, equal in the widget and in the panel."""
    mine, theirs = _texts(widget.locator(selector)), _texts(panel.locator(selector))
    assert mine == theirs, f"{selector}: the widget shows {mine}, the panel {theirs}"
    assert mine, f"{selector}: in neither view"
    return mine


_HEAD_WORDS = (
    "heads => heads.map(head => [...head.querySelectorAll(':scope > span')]"
    "  .filter(span => !span.classList.contains('jp-zengine-tool-time'))"
    "  .map(span => span.innerText.trim()).filter(Boolean))"
)
_DURATION = re.compile(r"^(\d+\.\d|\d+|\d+m \d+)s$")


def _heads(widget: Any, panel: Any) -> list[list[str]]:
    """Each tool card's one line (name, target, state), the same in the widget and the panel;
    the duration is left out of the comparison (each view measures its own: live from the
    events, rebuilt from the log's timestamps) but every finished call shows one."""
    mine, theirs = (view.locator(".jp-zengine-tool-head").evaluate_all(_HEAD_WORDS)
                    for view in (widget, panel))  # fmt: skip
    assert mine == theirs, f"tool heads: the widget shows {mine}, the panel {theirs}"
    assert mine, "tool heads: in neither view"
    for view in (widget, panel):
        times = view.locator(
            '.jp-zengine-tool:is([data-state="done"], [data-state="failed"]) .jp-zengine-tool-time'
        ).all_inner_texts()
        assert times, "no finished call shows its duration"
        assert all(_DURATION.match(t.strip()) for t in times), times
    return [list(map(str, head)) for head in mine]


def _narrow(page: Any, panel: Any) -> None:
    """At 250 px, while a turn runs and asks: "The agent is working…" stays on one line and no
    element of the panel reaches past its right edge (element boxes). Screenshot, then back."""
    node = panel.element_handle()
    before = node.evaluate("node => node.style.width")
    node.evaluate("node => { node.style.width = '250px' }")
    try:
        page.wait_for_function("node => node.getBoundingClientRect().width <= 251", arg=node)
        running = panel.locator(".jp-zengine-running")
        assert running.inner_text() == "The agent is working…"
        height, line = running.evaluate(
            "n => [n.getBoundingClientRect().height, parseFloat(getComputedStyle(n).lineHeight)"
            " || parseFloat(getComputedStyle(n).fontSize) * 1.4]"
        )
        assert height <= 1.6 * line, f"the status wraps: {height}px for a {line}px line"
        tops = [panel.locator(s).evaluate("n => n.getBoundingClientRect().top")
                for s in (".jp-zengine-running", ".jp-zengine-interrupt")]  # fmt: skip
        assert abs(tops[0] - tops[1]) < line, f"Interrupt is not beside the status: {tops}"
        widths = running.evaluate("n => [n.scrollWidth, n.clientWidth]")
        assert widths[0] <= widths[1], f"the status is cut short at 250 px: {widths}"
        overflowing = overflows(page, PANEL)  # boxes past their container, cut text
        panel.screenshot(path=str(ARTIFACTS / "light-panel-250px.png"))
        assert not overflowing, "at 250 px:\n" + "\n".join(overflowing)
    finally:
        node.evaluate("(node, width) => { node.style.width = width }", before)


def _wait_text(locator: Any, text: str) -> None:
    """Wait until the (first) element of ``locator`` contains ``text``."""
    locator.page.wait_for_function(
        "([node, text]) => node.innerText.includes(text)",
        arg=[locator.first.element_handle(), text],
    )


def _open_checks(view: Any) -> None:
    details = view.locator("details.jp-zengine-checks").first
    if details.get_attribute("open") is None:
        details.locator("summary").click()


_CONTRASTED = (".jp-zengine-item-assistant", ".jp-zengine-badge", ".jp-zengine-check",
               ".jp-zengine-approval-outcome", ".jp-zengine-tool-state",
               ".jp-zengine-diff-add", ".jp-zengine-diff-del")  # fmt: skip


def _contrasts(views: dict[str, Any], theme: str) -> dict[str, float]:
    """The contrast of each kind of text in each view, also written as an artifact."""
    found = {
        f"{name} {selector}": round(contrast(view.locator(selector).first), 2)
        for name, view in views.items()
        for selector in _CONTRASTED
    }
    (ARTIFACTS / f"{theme}-contrast.json").write_text(json.dumps(found, indent=1))
    return found


def _readable(found: dict[str, float]) -> None:
    """Every coloured kind of text reaches WCAG AA (4.5:1) against its ground."""
    low = {name: ratio for name, ratio in found.items() if ratio < 4.5}
    assert not low, f"contrast below 4.5:1: {low}"


def _shoot(page: Any, widget: Any, panel: Any, theme: str) -> None:
    """The widget, the panel scrolled to the top and to the end, and the whole page."""
    widget.screenshot(path=str(ARTIFACTS / f"{theme}-widget.png"))
    messages = panel.locator(".jp-zengine-messages")
    for end, name in ((False, "top"), (True, "end")):
        messages.evaluate("(node, end) => { node.scrollTop = end ? node.scrollHeight : 0 }", end)
        panel.screenshot(path=str(ARTIFACTS / f"{theme}-panel-{name}.png"))
    page.screenshot(path=str(ARTIFACTS / f"{theme}-page.png"))


# ---------------------------------------------------------------- the test


def test_one_turn_shows_the_same_words_in_the_cell_and_the_panel(
    page: Any, lab: LabServer, provider: ProviderServer
) -> None:
    provider.add(
        Reply(text=_chunks(FIRST), event_delay_s=0.01,
              tool_calls=(ScriptedToolCall("Read", {"path": "pipeline.py"}),)),
        Reply(tool_calls=(_edit("RATE = 1", "RATE = 2"),)),
        Reply(tool_calls=(ScriptedToolCall("Verify", {"checks": ["rate"]}),)),
        Reply(text=(SECOND,), tool_calls=(_edit("RATE = 2", "RATE = 3"),)),
        Reply(tool_calls=(ScriptedToolCall("Verify", {"checks": ["rate"]}),)),
        Reply(text=_chunks(FINAL), event_delay_s=0.01),
    )  # fmt: skip
    panel = page.locator(PANEL)
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for()
    run_cell(page, 0)
    cell(page, 0).locator(".jp-zengine-widget-status").wait_for()
    run_cell(page, 1)
    widget = cell(page, 1).locator(".jp-zengine-widget.jp-zengine-widget-turn")

    # the first approval: answered in the widget, the panel shows the outcome
    widget.locator(".jp-zengine-approval .jp-zengine-allow").wait_for()
    panel.locator(".jp-zengine-approval .jp-zengine-allow").wait_for()
    assert (lab.root / "pipeline.py").read_text() == ORIGINAL  # nothing before the answer
    _narrow(page, panel)
    assert _lines(panel.locator(".jp-zengine-item-user .jp-zengine-body").inner_text()) == [PROMPT]
    _same(widget, panel, ".jp-zengine-approval-title")
    widget.locator(".jp-zengine-approval .jp-zengine-allow").click()

    # the check fails, the model edits again and asks again: answered in the panel
    prompts = ".jp-zengine-approval .jp-zengine-allow"
    page.wait_for_function(
        "([a, b]) => document.querySelectorAll(a).length === 1"
        " && document.querySelectorAll(b).length === 1",
        arg=[f"{PANEL} {prompts}", f".jp-zengine-widget-turn {prompts}"],
    )
    for view in (widget, panel):
        view.locator('.jp-zengine-badge[data-badge="failed"]').wait_for()
        _wait_text(view.locator(".jp-zengine-approval-outcome"), "Allowed once.")
        _open_checks(view)
    failed = _same(widget, panel, ".jp-zengine-badge")
    assert failed[0][0].startswith("Checks failed: ")
    checks = _same(widget, panel, ".jp-zengine-check")
    assert checks[0][0].startswith("FAIL rate (exit 1, ")  # the engine's line, once
    _same(widget, panel, ".jp-zengine-approval-outcome")
    _same(widget, panel, '.jp-zengine-tool[data-state="proposed"] .jp-zengine-diff')
    _shoot(page, widget, panel, "light-failed")
    panel.locator(prompts).click()

    # the turn ends verified
    for view in (widget, panel):
        view.locator('.jp-zengine-badge[data-badge="verified"]').wait_for()
        view.locator('.jp-zengine-turnbar[data-running="false"]').wait_for()
    widget.locator(".jp-zengine-turn-result", has_text="Turn completed.").wait_for()
    assert (lab.root / "pipeline.py").read_text().startswith("RATE = 3\n")
    outcomes = _same(widget, panel, ".jp-zengine-approval-outcome")
    assert outcomes == [["Allowed once."], ["Allowed once."]]
    verified = _same(widget, panel, ".jp-zengine-badge")
    assert verified[0][0].startswith("Verified: ")
    checks = _same(widget, panel, ".jp-zengine-check")
    assert checks[0][0].startswith("PASS rate (exit 0, ")

    # the streamed markdown, rendered by JupyterLab in both views
    _wait_text(panel.locator(".jp-zengine-item-assistant").last, "check passes.")
    _wait_text(widget.locator(".jp-zengine-item-assistant").last, "check passes.")
    said = _same(widget, panel, ".jp-zengine-item-assistant .jp-zengine-body")
    assert said == [
        ["I'll set RATE in pipeline.py:", "RATE = 2"],
        ["The check wants 3, not 2."],
        ["Done: RATE is 3 and the rate check passes."],
    ]
    for view in (widget, panel):
        first = view.locator(".jp-zengine-item-assistant").first
        assert first.locator(".jp-RenderedMarkdown strong").inner_text() == "RATE"
        assert first.locator(".jp-RenderedMarkdown pre").inner_text().strip() == "RATE = 2"
        assert first.locator(".jp-RenderedMarkdown pre .jp-zengine-copy").count() == 1
        assert first.locator(".jp-zengine-meta .jp-zengine-author").inner_text() == "zengine"
    # Insert and Replace reach JupyterLab from the panel only; the cell shows Copy alone
    assert panel.locator(".jp-RenderedMarkdown pre .jp-zengine-insert-below").count() == 1
    assert widget.locator(".jp-RenderedMarkdown pre .jp-zengine-code-tool").count() == 1
    # the tool cards: name, summary, state; the Edits' diffs line by line
    cards = _heads(widget, panel)
    assert [card[0] for card in cards] == ["Read", "Edit", "Verify", "Edit", "Verify"]
    assert cards[2] == ["Verify", "rate", "failed"]  # summarize(args): the check ids
    assert cards[4] == ["Verify", "rate", "done"]
    diffs = _same(widget, panel, '.jp-zengine-tool[data-tool="Edit"] .jp-zengine-diff')
    assert "-RATE = 1" in diffs[0]
    assert "+RATE = 2" in diffs[0]
    assert "-RATE = 2" in diffs[1]
    assert "+RATE = 3" in diffs[1]
    _shoot(page, widget, panel, "light")

    # a multi-line notice: /checks run from a cell, shown in its widget and in the panel
    run_cell(page, 2)
    notice_widget = cell(page, 2).locator(".jp-zengine-item-notice", has_text="/checks:")
    notice_widget.wait_for()
    notice_panel = panel.locator(".jp-zengine-item-notice", has_text="/checks:")
    notice_panel.wait_for()
    notice = _lines(notice_widget.inner_text())
    assert notice == _lines(notice_panel.inner_text())
    assert len(notice) >= 2
    assert notice[0] == "/checks:"  # the lines below it start aligned
    assert any(line.startswith("rate test settings") for line in notice), notice
    assert notice[-1].startswith("mode report · badge verified")

    # a rewind from the panel's Rewind… control on the user's message
    rewind(panel.locator(".jp-zengine-item-user").last, "code")
    outcomes = panel.locator(".jp-zengine-item-rewind .jp-zengine-rewind-result")
    outcomes.first.wait_for()
    assert (lab.root / "pipeline.py").read_text() == ORIGINAL
    # the headline, then the engine's words: one outcome, drawn from the rewound event
    panel_headline = _lines(outcomes.first.locator(".jp-zengine-rewind-result-title").inner_text())
    assert panel_headline == [f"Rewound the files to before “{PROMPT}”."]
    first_lines = _lines(outcomes.first.inner_text())
    assert first_lines[0] == panel_headline[0]
    assert "restored pipeline.py" in first_lines

    # the same rewind from the %agent /rewind widget (the agent's edit put back first)
    (lab.root / "pipeline.py").write_text(ORIGINAL.replace("RATE = 1", "RATE = 3"))
    run_cell(page, 3)
    rewinder = cell(page, 3).locator(".jp-zengine-widget.jp-zengine-widget-rewind")
    point = rewinder.locator(".jp-zengine-rewind-point", has_text=PROMPT)
    point.locator("button", has_text="Restore code").click()
    result = rewinder.locator(".jp-zengine-rewind-result")
    result.wait_for()
    assert (lab.root / "pipeline.py").read_text() == ORIGINAL
    title = _lines(result.locator(".jp-zengine-rewind-result-title").inner_text())
    assert title == panel_headline
    outcomes.nth(1).wait_for()  # the widget's rewind shows in the panel too, in full
    # headline and describe_rewind's words, the same in the widget, in the panel for this
    # rewind and for the panel's own; only the safety checkpoint (new per rewind) differs
    masked = [_CHECKPOINT.sub("<checkpoint>", line) for line in _lines(result.inner_text())]
    for outcome in (outcomes.nth(0), outcomes.nth(1)):
        panel_lines = _lines(outcome.inner_text())
        assert masked == [_CHECKPOINT.sub("<checkpoint>", line) for line in panel_lines]
    assert "restored pipeline.py" in masked
    _shoot(page, cell(page, 3), panel, "light-rewound")

    # the dark theme: the same views, light text on a dark ground
    views = {"widget": widget, "panel": panel}
    assistants = [view.locator(".jp-zengine-item-assistant").first for view in views.values()]
    light = [colour(node) for node in assistants]
    assert all(luminance(c) < 0.3 for c in light), light  # dark text on light
    _readable(_contrasts(views, "light"))
    set_theme(page, "dark")
    for node, before in zip(assistants, light, strict=True):
        page.wait_for_function(
            "([node, before]) => getComputedStyle(node).color !== before",
            arg=[node.element_handle(), before],
        )
        assert luminance(colour(node)) > 0.5, colour(node)
        assert contrast(node) >= 4.5
    _readable(_contrasts(views, "dark"))
    _shoot(page, widget, panel, "dark")


_REBUILT = (".jp-zengine-item-assistant .jp-zengine-body",
            '.jp-zengine-tool[data-tool="Edit"] .jp-zengine-diff', ".jp-zengine-approval-outcome",
            ".jp-zengine-badge", ".jp-zengine-check")  # fmt: skip


def test_the_panel_rebuilt_from_the_log_shows_the_same_words(page: Any) -> None:
    """Resuming the chat makes the panel draw the turn again from the chat's log records
    (``ChatView.reset``), as after a kernel restart; the cell widget keeps its live events."""
    panel = page.locator(PANEL)
    widget = cell(page, 1).locator(".jp-zengine-widget.jp-zengine-widget-turn")
    session = panel.get_attribute("data-session-id")
    panel.locator(".jp-zengine-sessions > summary").click()
    panel.locator(f'.jp-zengine-session[data-session-id="{session}"] .jp-zengine-resume').click()
    # notices are not log records: gone once the panel has drawn the chat again
    panel.locator(".jp-zengine-item-notice", has_text="/checks:").wait_for(state="detached")
    page.wait_for_selector(f'{PANEL}[data-subscribed="true"][data-session-id="{session}"]')
    panel.locator(".jp-zengine-tool").nth(4).wait_for()
    _open_checks(panel)
    _shoot(page, widget, panel, "dark-rebuilt")
    differ = {}
    for selector in _REBUILT:
        mine, theirs = _texts(widget.locator(selector)), _texts(panel.locator(selector))
        if mine != theirs:
            differ[selector] = {"widget": mine, "panel": theirs}
    (ARTIFACTS / "rebuilt-differences.json").write_text(json.dumps(differ, indent=1))
    assert not differ, json.dumps(differ, indent=1)
    _heads(widget, panel)
