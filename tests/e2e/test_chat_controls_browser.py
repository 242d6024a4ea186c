"""The panel's input footer, chats list and empty/error states in real JupyterLab and Debian
Chromium, against a real kernel and the local model provider (issue 27).

1. the pickers: choose a model and a mode in the footer; the next request to the provider
   carries the chosen model, and plan mode refuses an edit;
2. the chats list: rename inline, delete asks inside the panel (Cancel keeps the chat), open
   another chat, deleting the open chat opens a new one;
3. the states: a provider down (the provider answers 529 with a retry-after: which provider,
   the attempt and a countdown), no model configured (the button opens the setup view), a
   cassette replay (``ZENGINE_CASSETTE``).

Each state is checked at 250 px and 600 px panel widths, in the light and the dark theme: no
element's box reaches past its container (element boxes), screenshots in
.ci-artifacts/chat-controls/.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest

from zengine_jupyter.protocol import MessageRecord
from zengine_jupyter.store import SessionStore
from zengine_jupyter.testing import (
    DEFAULT_MODEL,
    ProviderServer,
    Reply,
    ScriptedToolCall,
    provider_in_thread,
    write_provider_settings,
)
from zengine_jupyter.testing.components import require_component
from zengine_jupyter.testing.lab import LabServer, chromium_page, running_lab

# the first test also starts JupyterLab; on a loaded two-core machine that alone takes a minute
pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(240)]

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / ".ci-artifacts" / "chat-controls"
CASSETTE = REPO / "notebooks" / "cassettes" / "quickstart.jsonl"
PANEL = "#zengine-panel"
WAIT_MS = 60_000
ORIGINAL = "RATE = 1\n"

# Every element of ``root`` whose box reaches past its parent's (or the panel's) left or right
# edge, unless an ancestor between them clips or scrolls and itself fits.
_OVERFLOWING = """([panel, root]) => {
  const out = [];
  const edge = panel.getBoundingClientRect();
  for (const node of root.querySelectorAll('*')) {
    const box = node.getBoundingClientRect();
    if (!box.width || !node.parentElement) continue;
    const parent = node.parentElement.getBoundingClientRect();
    const past = box.right > Math.min(parent.right, edge.right) + 1
      || box.left < Math.max(parent.left, edge.left) - 1;
    if (!past) continue;
    let clipped = false;
    for (let up = node.parentElement; up && up !== panel; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (style.overflowX !== 'visible' && up.getBoundingClientRect().right <= edge.right + 1) {
        clipped = true; break;
      }
    }
    if (!clipped) out.push(`${node.tagName}.${node.className} ${Math.round(box.left)}-` +
                           `${Math.round(box.right)} in ${Math.round(parent.left)}-` +
                           `${Math.round(parent.right)}`);
  }
  return out;
}"""


@pytest.fixture(scope="module")
def provider() -> Iterator[ProviderServer]:
    with provider_in_thread() as server:
        yield server


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("zengine-home")


@pytest.fixture(scope="module")
def lab(
    tmp_path_factory: pytest.TempPathFactory, provider: ProviderServer, home: Path
) -> Iterator[LabServer]:
    require_component("node")
    root = tmp_path_factory.mktemp("project")
    (root / ".git").mkdir()
    (root / "pipeline.py").write_text(ORIGINAL)
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}  # fmt: skip
    nb.cells.append(nbformat.v4.new_code_cell(""))
    nbformat.write(nb, root / "analysis.ipynb")
    write_provider_settings(home, provider.base_url)
    with running_lab(root, tmp_path_factory.mktemp("lab-state"), env={"ZENGINE_HOME": str(home)}
                     ) as server:  # fmt: skip
        yield server


@pytest.fixture(scope="module")
def page(lab: LabServer) -> Iterator[Any]:
    with chromium_page(ARTIFACTS, size=(1400, 900), timeout_ms=WAIT_MS) as tab:
        tab.goto(lab.lab_url("analysis.ipynb"))
        tab.locator('.jp-SideBar.jp-mod-right .lm-TabBar-tab[data-id="zengine-panel"]').click()
        tab.wait_for_selector(f'{PANEL}[data-state="connected"][data-subscribed="true"]')
        yield tab


# ---------------------------------------------------------------- helpers


def _panel(page: Any, selector: str) -> Any:
    return page.locator(f"{PANEL} {selector}")


def _theme(page: Any, dark: bool) -> None:
    name = "JupyterLab Dark" if dark else "JupyterLab Light"
    page.evaluate(f"() => window.jupyterapp.commands.execute('apputils:change-theme', "
                  f"{{theme: '{name}'}})")  # fmt: skip
    page.wait_for_selector(f'body[data-jp-theme-light="{str(not dark).lower()}"]',
                           state="attached")  # fmt: skip
    page.wait_for_selector("#jupyterlab-splash", state="detached")


# Give the right sidebar (the panel) ``width`` px through JupyterLab's own split panel, so the
# panel really is that wide (setting the panel's own width would only clip it at the sidebar).
_SIDEBAR = """width => {
  const split = window.jupyterapp.shell._hsplitPanel;
  const total = split.node.getBoundingClientRect().width;
  const left = split.widgets[0].node.getBoundingClientRect().width;
  split.setRelativeSizes([left, Math.max(total - left - width, 100), width]);
}"""


def _fits(page: Any, name: str, parts: tuple[str, ...]) -> None:
    """At 250 and 600 px, light and dark: nothing in ``parts`` (selectors in the panel)
    reaches past its container; a screenshot of the panel each time."""
    panel = page.locator(PANEL)
    node = panel.element_handle()
    before = node.evaluate("node => node.getBoundingClientRect().width")
    try:
        for dark in (False, True):
            _theme(page, dark)
            for width in (250, 600):
                page.evaluate(_SIDEBAR, width)
                page.wait_for_function(
                    f"node => Math.abs(node.getBoundingClientRect().width - {width}) <= 12",
                    arg=node,
                )
                theme = "dark" if dark else "light"
                panel.screenshot(path=str(ARTIFACTS / f"{name}-{theme}-{width}px.png"))
                for selector in parts:
                    for root in _panel(page, selector).element_handles():
                        out = page.evaluate(_OVERFLOWING, [node, root])
                        assert not out, f"{selector} at {width}px ({theme}): {out}"
    finally:
        page.evaluate(_SIDEBAR, before)
        _theme(page, False)


def _wait_turn_over(page: Any) -> None:
    page.wait_for_selector(f'{PANEL} .jp-zengine-turnbar[data-running="false"]')


def _options_loaded(page: Any, model: str) -> None:
    page.wait_for_function(
        "([sel, model]) => document.querySelector(sel)?.value === model",
        arg=[f"{PANEL} .jp-zengine-model-pick select", model],
    )


# ---------------------------------------------------------------- the tests


def test_pickers_choose_model_and_mode(page: Any, lab: LabServer, provider: ProviderServer) -> None:
    provider.add(Reply.answer("Hello."))
    _panel(page, ".jp-zengine-input").fill("hello")
    _panel(page, ".jp-zengine-send").click()
    _panel(page, ".jp-zengine-item-assistant >> text=Hello.").wait_for()
    _wait_turn_over(page)
    _options_loaded(page, DEFAULT_MODEL)
    model = _panel(page, ".jp-zengine-model-pick select")
    mode = _panel(page, ".jp-zengine-mode-pick select")
    assert model.get_attribute("aria-label") == "Model"
    assert mode.get_attribute("aria-label") == "Permission mode"
    choices = model.locator("option").evaluate_all("os => os.map(o => o.value)")
    assert DEFAULT_MODEL in choices
    other = next(m for m in choices if m != DEFAULT_MODEL)
    modes = mode.locator("option").evaluate_all("os => os.map(o => o.value)")
    assert modes == ["default", "accept_edits", "plan", "bypass"]
    assert "so far" in _panel(page, ".jp-zengine-footer-cost").inner_text()

    # keyboard: focus the picker, choose with the arrow keys (a native select)
    model.select_option(other)
    _options_loaded(page, other)
    _panel(page, f".jp-zengine-item-notice >> text=model: {other}").wait_for()
    mode.focus()
    mode.select_option("plan")
    page.wait_for_function(
        "sel => document.querySelector(sel)?.value === 'plan'",
        arg=f"{PANEL} .jp-zengine-mode-pick select",
    )
    _panel(page, ".jp-zengine-item-notice >> text=mode: plan").wait_for()

    # the next request carries the chosen model; plan mode refuses the edit
    edit = {"path": "pipeline.py", "old_string": "RATE = 1", "new_string": "RATE = 2"}
    provider.add(Reply(tool_calls=(ScriptedToolCall("Edit", edit),)), Reply.answer("Refused."))
    _panel(page, ".jp-zengine-input").fill("Set RATE to 2")
    _panel(page, ".jp-zengine-send").click()
    _panel(page, ".jp-zengine-item-assistant >> text=Refused.").wait_for()
    _wait_turn_over(page)
    sent = [r.json["model"] for r in provider.requests
            if "Set RATE to 2" in json.dumps(r.json.get("messages"))]  # fmt: skip
    assert sent, "the turn never reached the provider"
    assert set(sent) == {other}
    assert (lab.root / "pipeline.py").read_text() == ORIGINAL
    card = _panel(page, '.jp-zengine-tool[data-tool="Edit"]').last
    assert card.get_attribute("data-state") == "denied"  # plan mode: read-only
    assert _panel(page, ".jp-zengine-stop").is_hidden()
    _fits(page, "pickers", (".jp-zengine-form", ".jp-zengine-states"))


def test_chats_list_rename_delete_and_open(page: Any, lab: LabServer, home: Path) -> None:
    current = page.locator(PANEL).get_attribute("data-session-id")
    # another chat of the project, written to the store as a chat would be
    writer = SessionStore(home / "sessions").create(project=str(lab.root.resolve()))
    writer.append(MessageRecord(role="user", text="an older question"))
    writer.write_meta()
    other = writer.folder.name
    writer.close()

    _chats_list(page, True)
    mine = _panel(page, f'.jp-zengine-session[data-session-id="{current}"]')
    mine.wait_for()
    assert mine.get_attribute("aria-current") == "true"
    assert "$" in mine.locator(".jp-zengine-session-meta").inner_text()

    # rename inline: Enter saves (the /title path)
    mine.locator(".jp-zengine-rename").click()
    field = mine.locator(".jp-zengine-rename-input")
    field.fill("Pipeline rate")
    field.press("Enter")
    mine.locator(".jp-zengine-session-title", has_text="Pipeline rate").wait_for()
    page.locator(f"{PANEL} .jp-zengine-title", has_text="Pipeline rate").wait_for()  # header

    # delete asks inside the panel; Cancel (focused first) keeps the chat
    theirs = _panel(page, f'.jp-zengine-session[data-session-id="{other}"]')
    theirs.locator(".jp-zengine-delete").click()
    dialog = theirs.locator('[role="alertdialog"]')
    assert "checkpoints stay" in dialog.inner_text()
    cancel = dialog.locator(".jp-zengine-confirm-cancel")
    assert cancel.evaluate("node => node === document.activeElement")
    _fits(page, "chats-delete-asks", (".jp-zengine-sessions",))
    # the theme switches in _fits move focus to the page: Escape is pressed on the dialog
    cancel.press("Escape")
    dialog.wait_for(state="detached")
    assert theirs.count() == 1

    # open the other chat (resume), then delete it: asked, confirmed, gone from the list
    theirs.locator(".jp-zengine-resume").click()
    page.wait_for_selector(f'{PANEL}[data-subscribed="true"][data-session-id="{other}"]')
    theirs.locator(".jp-zengine-delete").click()
    theirs.locator(".jp-zengine-confirm-accept").click()
    # the open chat was deleted: a new one opens, the list no longer has it
    page.wait_for_function(
        "([sel, old]) => { const p = document.querySelector(sel);"
        " return p.dataset.sessionId && p.dataset.sessionId !== old; }",
        arg=[PANEL, other],
    )
    theirs.wait_for(state="detached")
    assert not (home / "sessions" / other).exists()
    assert list((home / "sessions" / ".trash").glob(f"{other}--*"))
    assert mine.count() == 1
    _fits(page, "chats", (".jp-zengine-sessions",))
    _chats_list(page, False)


def test_states_provider_down_no_model_and_cassette(
    page: Any, lab: LabServer, provider: ProviderServer, home: Path
) -> None:
    # a provider down: 529 with a retry-after; which provider, the attempt, a countdown
    provider.add(Reply.fault(529, retry_after="6"), Reply.answer("Back again."))
    _panel(page, ".jp-zengine-input").fill("are you there?")
    _panel(page, ".jp-zengine-send").click()
    down = _panel(page, ".jp-zengine-state-provider-down")
    down.wait_for()
    assert "127.0.0.1 is not answering" in down.inner_text()
    assert "attempt 2 of 5 in" in down.inner_text()
    first = int(down.get_attribute("data-seconds-left"))
    page.wait_for_function(
        "([node, first]) => Number(node.dataset.secondsLeft) < first",
        arg=[down.element_handle(), first],
    )
    assert down.locator("button").count() == 0  # the engine has no "retry now"
    assert _panel(page, ".jp-zengine-stop").is_visible()
    page.locator(PANEL).screenshot(path=str(ARTIFACTS / "provider-down-light-panel.png"))
    panel = page.locator(PANEL).element_handle()
    out = page.evaluate(_OVERFLOWING, [panel, down.element_handle()])
    assert not out, out
    down.wait_for(state="detached", timeout=20_000)  # the provider answered
    _wait_turn_over(page)

    # no model configured: say what to configure; the button opens the setup view
    (home / "settings.toml").write_text("")
    _delete_open_chat(page)
    box = _panel(page, ".jp-zengine-state-unconfigured")
    box.wait_for()
    assert "No model is configured" in box.inner_text()
    assert "ANTHROPIC_API_KEY" in box.inner_text()
    _fits(page, "no-model", (".jp-zengine-states", ".jp-zengine-form"))
    box.locator("button", has_text="Set up a model").click()
    _panel(page, ".jp-zengine-setup-host").wait_for()
    page.locator(PANEL).screenshot(path=str(ARTIFACTS / "no-model-setup-open.png"))
    _panel(page, ".jp-zengine-setup-open").click()  # closes it again

    # a cassette replay (ZENGINE_CASSETTE in the kernel): no provider is called, how to go live
    cell = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell").first
    cell.locator(".cm-content").click()
    page.keyboard.press("Control+A")
    page.keyboard.insert_text(f"%env ZENGINE_CASSETTE={CASSETTE}")
    page.keyboard.press("Control+Enter")
    cell.locator(".jp-OutputArea-output", has_text="env: ZENGINE_CASSETTE").wait_for()
    _delete_open_chat(page)
    replay = _panel(page, ".jp-zengine-state-replay")
    replay.wait_for()
    assert "no provider is called" in replay.inner_text()
    assert "To run live" in replay.inner_text()
    assert _panel(page, ".jp-zengine-model-pick select").input_value() == "replay"
    _fits(page, "cassette", (".jp-zengine-states", ".jp-zengine-form"))


def _delete_open_chat(page: Any) -> None:
    """Delete the chat the panel shows from the chats list; wait for the new one."""
    old = page.locator(PANEL).get_attribute("data-session-id")
    _chats_list(page, True)
    item = _panel(page, f'.jp-zengine-session[data-session-id="{old}"]')
    item.locator(".jp-zengine-delete").click()
    item.locator(".jp-zengine-confirm-accept").click()
    page.wait_for_function(
        "([sel, old]) => { const p = document.querySelector(sel);"
        " return p.dataset.sessionId && p.dataset.sessionId !== old; }",
        arg=[PANEL, old],
    )
    _chats_list(page, False)


def _chats_list(page: Any, want_open: bool) -> None:
    """Open or close the chats list, whatever state an earlier test left it in."""
    details = _panel(page, ".jp-zengine-sessions")
    if details.evaluate("node => node.open") != want_open:
        details.locator("> summary").click()
    page.wait_for_function(
        "([node, want]) => node.open === want", arg=[details.element_handle(), want_open]
    )
