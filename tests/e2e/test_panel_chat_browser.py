"""The side panel's chat in real JupyterLab and Debian Chromium, against a real kernel and the
local model provider (issue 13, acceptance 2-5).

2. send a message from the panel, approve in the panel: the file changes on disk and the
   verification badge shows with its check record; rewind the code: the file on disk is
   restored and the editor open on it shows the restored text.
3. a ``%%agent`` cell's turn appears live in the panel; an approval given in the panel updates
   the cell's widget, and one given in the widget updates the panel.
4. a kernel restart: the panel reconnects and shows the chat's history.
   (and: "Provider busy · retry N in Xs", then Interrupt stops a streaming turn)
5. keyboard only (no clicks): send, approve, rewind (an editor with unsaved changes asks
   first); screenshots in the light and the dark theme.

One JupyterLab, one provider server and one browser serve the module; the tests run in order
on one chat. Screenshots go to .ci-artifacts/panel/ only (a test never rewrites a tracked file);
``scripts/update-screenshots`` copies panel.png to docs/images/ (the README's screenshot).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest

from zengine_jupyter.config import TrustStore
from zengine_jupyter.testing import (
    ProviderServer,
    Reply,
    ScriptedToolCall,
    provider_in_thread,
    write_provider_settings,
)
from zengine_jupyter.testing.components import require_component
from zengine_jupyter.testing.lab import LabServer, chromium_page, running_lab
from zengine_jupyter.testing.lab_views import PANEL, open_panel, rewind

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / ".ci-artifacts" / "panel"
WAIT_MS = 60_000
ORIGINAL = "RATE = 1\nprint('rate', RATE)\n"


def _edit_turn(server: ProviderServer, old: str, new: str, done: str) -> None:
    """A turn that reads pipeline.py, edits ``old`` into ``new`` (approval) and says ``done``."""
    edit = {"path": "pipeline.py", "old_string": old, "new_string": new}
    server.add(
        Reply(thinking=("The rate lives in pipeline.py.",),
              text=("Let me look at **pipeline.py**.",),
              tool_calls=(ScriptedToolCall("Read", {"path": "pipeline.py"}),)),
        Reply(tool_calls=(ScriptedToolCall("Edit", edit),)),
        Reply(text=tuple(re.findall(r"\S+\s*", done)), event_delay_s=0.01),  # word by word
    )  # fmt: skip


@pytest.fixture(scope="module")
def provider() -> Iterator[ProviderServer]:
    with provider_in_thread() as server:
        yield server


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory, provider: ProviderServer) -> Iterator[LabServer]:
    require_component("node")  # the panel is built by scripts/test only where node is
    root = tmp_path_factory.mktemp("project")
    (root / ".git").mkdir()
    (root / "pipeline.py").write_text(ORIGINAL)
    nb = nbformat.v4.new_notebook()
    spec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["kernelspec"] = spec
    nb.cells.append(nbformat.v4.new_code_cell(""))
    nbformat.write(nb, root / "analysis.ipynb")
    home = tmp_path_factory.mktemp("zengine-home")
    write_provider_settings(
        home,
        provider.base_url,
        '[verification]\nmode = "auto"\n'
        '[[verification.checks]]\nid = "pipeline"\nkind = "test"\n'
        f'command = ["{sys.executable}", "pipeline.py"]\n',
    )
    TrustStore(home / "trust.json").trust(root)  # automatic checks run in trusted projects only
    env = {"ZENGINE_HOME": str(home), "ANTHROPIC_API_KEY": "test-key"}
    with running_lab(root, tmp_path_factory.mktemp("lab-state"), env=env) as server:
        yield server


@pytest.fixture(scope="module")
def page(lab: LabServer) -> Iterator[Any]:
    with chromium_page(ARTIFACTS, size=(1400, 900), timeout_ms=WAIT_MS) as tab:
        tab.goto(lab.lab_url("analysis.ipynb"))
        open_panel(tab)
        yield tab


# ---------------------------------------------------------------- helpers


def _shot(page: Any, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def _panel(page: Any, selector: str) -> Any:
    return page.locator(f"{PANEL} {selector}")


def _last_user(page: Any) -> str:
    """The text of the panel's last user message."""
    return str(_panel(page, ".jp-zengine-item-user .jp-zengine-body").last.inner_text())


def _wait_turn_over(page: Any) -> None:
    page.wait_for_selector(f'{PANEL} .jp-zengine-turnbar[data-running="false"]')


def _editor_shows(page: Any, text: str) -> None:
    """Wait until the file editor's text contains ``text`` (it loads after it appears)."""
    page.wait_for_function(
        "text => document.querySelector('.jp-FileEditor .cm-content')?.innerText.includes(text)",
        arg=text,
    )


def _open_editor(page: Any, expected: str) -> None:
    """Open pipeline.py in a JupyterLab editor (from the file browser) showing ``expected``."""
    page.locator(".jp-DirListing-content .jp-DirListing-itemText >> text=pipeline.py").dblclick()
    _editor_shows(page, expected)


def _notebook_tab(page: Any) -> None:
    page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab >> text=analysis.ipynb").click()


# ---------------------------------------------------------------- the tests


def test_send_approve_badge_and_rewind_code(
    page: Any, lab: LabServer, provider: ProviderServer
) -> None:
    pipeline = lab.root / "pipeline.py"
    done = (
        "Done: **RATE** is 2 now. The `pipeline` check ran after the edit and passed, so this "
        "turn is *verified*; the diff above shows the one line that changed in the file."
    )
    _edit_turn(provider, "RATE = 1", "RATE = 2", done)
    provider.title_replies.append(Reply.answer("Raise the pipeline rate"))  # model.fast's title
    _panel(page, ".jp-zengine-input").fill("Set RATE to 2")
    _panel(page, ".jp-zengine-send").click()

    prompt = _panel(page, ".jp-zengine-approval").last
    prompt.locator(".jp-zengine-allow").wait_for()
    assert _last_user(page) == "Set RATE to 2"
    card = _panel(page, '.jp-zengine-tool[data-tool="Edit"]').last
    assert "+RATE = 2" in card.locator(".jp-zengine-diff").inner_text()
    assert pipeline.read_text() == ORIGINAL  # nothing happens before the answer
    _shot(page, "1-approval")
    prompt.locator(".jp-zengine-allow").click()

    badge = _panel(page, '.jp-zengine-badge[data-badge="verified"]')
    badge.wait_for()
    assert pipeline.read_text() == "RATE = 2\nprint('rate', RATE)\n"
    assert "pipeline" in badge.inner_text()
    assert _panel(page, '.jp-zengine-check[data-check-id="pipeline"]').count() == 1
    assert prompt.locator("button").count() == 0  # answered: the buttons are gone
    assert prompt.locator(".jp-zengine-approval-outcome").inner_text() == "Allowed once."
    assert card.get_attribute("data-state") == "done"
    # streamed markdown, rendered by JupyterLab, its deltas coalesced into a few renders
    deltas = len(re.findall(r"\S+\s*", done))
    answer = _panel(page, ".jp-zengine-item-assistant .jp-zengine-markdown").last
    page.wait_for_function(
        "node => node.innerText.includes('changed in the file.')", arg=answer.element_handle()
    )
    assert "RATE** is 2" not in answer.inner_text()
    assert answer.locator(".jp-RenderedMarkdown strong").inner_text() == "RATE"
    assert answer.locator(".jp-RenderedMarkdown em").inner_text() == "verified"
    assert 1 <= int(answer.get_attribute("data-renders")) <= deltas // 2
    assert "$" in _panel(page, ".jp-zengine-cost").inner_text()
    _wait_turn_over(page)
    # after the first turn the chat gets its title (spec gaps 21.4), live in the header
    page.locator(f"{PANEL} .jp-zengine-title", has_text="Raise the pipeline rate").wait_for()
    page.locator(PANEL).screenshot(path=str(ARTIFACTS / "panel.png"))
    _shot(page, "2-verified")

    # the sessions list (from meta.json) and resuming the chat from it; the MCP view
    session = page.locator(PANEL).get_attribute("data-session-id")
    _panel(page, ".jp-zengine-sessions > summary").click()
    item = _panel(page, f'.jp-zengine-session[data-session-id="{session}"]')
    item.wait_for()
    assert "$" in item.locator(".jp-zengine-session-meta").inner_text()
    assert item.locator(".jp-zengine-session-title").inner_text() == "Raise the pipeline rate"
    assert "jp-mod-current" in (item.get_attribute("class") or "")
    connections_before = _panel(page, ".jp-zengine-item").count()
    item.locator(".jp-zengine-resume").click()
    page.wait_for_selector(f'{PANEL}[data-subscribed="true"][data-session-id="{session}"]')
    assert _panel(page, ".jp-zengine-item-user").count() == 1
    assert _panel(page, ".jp-zengine-item").count() <= connections_before
    _panel(page, ".jp-zengine-sessions > summary").click()
    _panel(page, ".jp-zengine-mcp > summary").click()
    _panel(page, ".jp-zengine-mcp-list >> text=No MCP servers configured.").wait_for()
    _panel(page, ".jp-zengine-mcp > summary").click()

    # the editor opened now shows the agent's version; a code rewind reloads it from disk
    _open_editor(page, "RATE = 2")
    rewind(_panel(page, ".jp-zengine-item-user").last, "code")
    _panel(page, ".jp-zengine-item-rewind >> text=Reloaded from disk").wait_for()
    assert pipeline.read_text() == ORIGINAL
    _editor_shows(page, "RATE = 1")
    # a code rewind keeps the conversation
    assert _last_user(page) == "Set RATE to 2"
    _shot(page, "3-rewound-code")
    _notebook_tab(page)


def test_agent_cell_turn_is_live_in_the_panel_both_ways(
    page: Any, lab: LabServer, provider: ProviderServer
) -> None:
    pipeline = lab.root / "pipeline.py"
    users_before = _panel(page, ".jp-zengine-item-user").count()
    cell = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell").first
    _edit_turn(provider, "RATE = 1", "RATE = 3", "RATE is 3.")
    _run_cell(page, cell, "%%agent\nSet RATE to 3")

    # the turn shows up in the panel, live; the panel answers, the widget follows
    _panel(page, ".jp-zengine-approval .jp-zengine-allow").last.wait_for()
    assert _panel(page, ".jp-zengine-item-user").count() == users_before + 1
    assert _last_user(page) == "Set RATE to 3"
    widget = cell.locator(".jp-zengine-widget-turn")
    widget.locator(".jp-zengine-approval").wait_for()
    _panel(page, ".jp-zengine-approval .jp-zengine-allow").last.click()
    edit_state = widget.locator('.jp-zengine-tool[data-tool="Edit"] .jp-zengine-tool-state')
    page.wait_for_function(
        "node => /allowed|done/.test(node.textContent)", arg=edit_state.element_handle()
    )
    _wait_turn_over(page)
    assert pipeline.read_text().startswith("RATE = 3")
    _shot(page, "4-agent-cell-approved-in-panel")

    # a second turn: answered in the widget, the panel's prompt shows it and loses its buttons
    _edit_turn(provider, "RATE = 3", "RATE = 4", "RATE is 4.")
    _run_cell(page, cell, "%%agent\nSet RATE to 4")
    prompt = _panel(page, ".jp-zengine-approval").last
    prompt.locator(".jp-zengine-allow").wait_for()
    cell.locator(".jp-zengine-approval .jp-zengine-allow").last.click()
    prompt.locator(".jp-zengine-approval-outcome").wait_for()
    assert prompt.locator("button").count() == 0
    assert "Allowed" in prompt.locator(".jp-zengine-approval-outcome").inner_text()
    _wait_turn_over(page)
    assert pipeline.read_text().startswith("RATE = 4")
    _shot(page, "5-agent-cell-approved-in-widget")


def _run_cell(page: Any, cell: Any, source: str) -> None:
    """Replace the cell's source and run it (Ctrl+Enter keeps the cell selected)."""
    editor = cell.locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.insert_text(source)
    page.keyboard.press("Control+Enter")


def test_kernel_restart_reconnects_with_the_history(page: Any) -> None:
    connections = int(page.locator(PANEL).get_attribute("data-connections"))
    snapshots = int(page.locator(PANEL).get_attribute("data-snapshots"))
    session = page.locator(PANEL).get_attribute("data-session-id")
    assert session
    restart = 'jp-button[data-command="notebook:restart-kernel"]'
    page.locator(f".jp-NotebookPanel:not(.lm-mod-hidden) {restart}").click()
    page.locator(".jp-Dialog .jp-mod-accept").click()
    page.wait_for_selector(f'{PANEL}[data-connections="{connections + 1}"][data-subscribed="true"]')
    page.wait_for_selector(f'{PANEL}[data-session-id="{session}"]')
    # the history came back in a snapshot, the chat's DOM rebuilt from it (the rewind helper
    # of lab_views names this count when a menu did not stay open)
    assert int(page.locator(PANEL).get_attribute("data-snapshots")) > snapshots
    texts = _panel(page, ".jp-zengine-item-user .jp-zengine-body").all_inner_texts()
    assert texts[:3] == ["Set RATE to 2", "Set RATE to 3", "Set RATE to 4"]
    assert _panel(page, '.jp-zengine-tool[data-tool="Edit"][data-state="done"]').count() == 3
    # the check records behind the badge, and the chat's cost (from its meta.json)
    assert _panel(page, '.jp-zengine-check[data-check-id="pipeline"]').count() == 1
    page.wait_for_function(
        f"document.querySelector('{PANEL} .jp-zengine-cost').textContent.startsWith('chat $')"
    )
    _shot(page, "6-after-restart")


def test_deny_with_a_reason(page: Any, lab: LabServer, provider: ProviderServer) -> None:
    pipeline = lab.root / "pipeline.py"
    before = pipeline.read_text()
    _edit_turn(provider, before.splitlines()[0], "RATE = 99", "Understood, I left it.")
    _panel(page, ".jp-zengine-input").fill("Set RATE to 99")
    _panel(page, ".jp-zengine-input").press("Enter")
    prompt = _panel(page, ".jp-zengine-approval").last
    prompt.locator(".jp-zengine-deny").wait_for()
    prompt.locator(".jp-zengine-deny-reason").fill("99 is too high")
    prompt.locator(".jp-zengine-deny").click()
    # the reply may settle the prompt ("Denied by you: ...") before the event does: same words
    outcome = prompt.locator(".jp-zengine-approval-outcome", has_text="Denied by you")
    outcome.wait_for()
    assert outcome.inner_text() == "Denied by you: 99 is too high."
    assert prompt.locator("button").count() == 0
    card = _panel(page, '.jp-zengine-tool[data-tool="Edit"]').last
    assert card.get_attribute("data-state") == "denied"
    _wait_turn_over(page)
    assert pipeline.read_text() == before
    # the model was told why
    assert "99 is too high" in str(provider.requests[-1].body)


def test_provider_busy_then_interrupt(page: Any, provider: ProviderServer) -> None:
    story = tuple(f"line {i}. " for i in range(100))
    provider.add(
        Reply(status=429, retry_after="1"),
        Reply(text=story, event_delay_s=0.05),
    )
    _panel(page, ".jp-zengine-input").fill("Tell me a long story")
    _panel(page, ".jp-zengine-input").press("Enter")
    busy = _panel(page, ".jp-zengine-item-busy").last
    busy.wait_for()
    assert re.fullmatch(r"Provider busy · retry \d+ in 1s", busy.inner_text())
    interrupt = _panel(page, ".jp-zengine-interrupt")
    _panel(page, ".jp-zengine-item-assistant >> text=line 3.").wait_for()
    assert interrupt.is_enabled()
    _shot(page, "7-busy-and-streaming")
    interrupt.click()
    _panel(page, ".jp-zengine-item-notice >> text=Turn interrupted").wait_for()
    _wait_turn_over(page)
    assert interrupt.is_hidden()  # Interrupt only while a turn runs
    assert "line 99." not in _panel(page, ".jp-zengine-item-assistant").last.inner_text()


def test_keyboard_only_send_approve_rewind_and_themes(
    page: Any, lab: LabServer, provider: ProviderServer
) -> None:
    pipeline = lab.root / "pipeline.py"
    # an unsaved change in the open editor: the rewind must ask before reloading it
    editor = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab >> text=pipeline.py")
    editor.click()
    page.locator(".jp-FileEditor .cm-content").first.click()
    page.keyboard.press("Control+End")
    page.keyboard.type("# my note\n")
    _notebook_tab(page)
    before = pipeline.read_text()

    _edit_turn(provider, before.splitlines()[0], "RATE = 5", "RATE is 5.")
    page.keyboard.press("Alt+z")  # zengine:focus-input
    assert page.evaluate("document.activeElement.classList.contains('jp-zengine-input')")
    page.keyboard.type("Set RATE to 5")
    page.keyboard.press("Enter")
    _panel(page, ".jp-zengine-approval .jp-zengine-allow").last.wait_for()
    page.keyboard.press("Alt+y")  # zengine:focus-approval
    assert page.evaluate("document.activeElement.classList.contains('jp-zengine-allow')")
    _shot(page, "8-keyboard-approval-light")
    page.keyboard.press("Enter")
    _wait_turn_over(page)
    assert pipeline.read_text().startswith("RATE = 5")

    # Shift+Tab back from the input box to the last message's Rewind button
    page.keyboard.press("Alt+z")
    for _ in range(60):
        page.keyboard.press("Shift+Tab")
        if page.evaluate("document.activeElement.classList.contains('jp-zengine-rewind-toggle')"):
            break
    turn = page.evaluate("document.activeElement.closest('[data-turn-id]').dataset.turnId")
    last = _panel(page, ".jp-zengine-item-user").last.get_attribute("data-turn-id")
    assert turn == last
    page.keyboard.press("Enter")  # opens the menu on "Code"
    assert page.evaluate("document.activeElement.dataset.scope") == "code"
    page.keyboard.press("Enter")
    dialog = page.locator(".jp-Dialog")
    dialog.wait_for()
    assert "unsaved changes" in dialog.inner_text()
    _shot(page, "9-keyboard-rewind-asks")
    page.keyboard.press("Enter")  # the default button: reload from disk
    _panel(page, ".jp-zengine-item-rewind >> text=Reloaded from disk").wait_for()
    assert pipeline.read_text() == before
    _editor_shows(page, "RATE = 4")
    _shot(page, "10-keyboard-rewound-light")

    # the dark theme, through JupyterLab's CSS variables
    light = _background(page)
    page.locator(".lm-MenuBar-itemLabel", has_text="Settings").click()
    page.locator(".lm-Menu-itemLabel").get_by_text("Theme", exact=True).hover()
    page.locator(".lm-Menu-itemLabel").get_by_text("JupyterLab Dark", exact=True).click()
    page.wait_for_selector('body[data-jp-theme-light="false"]', state="attached")
    page.wait_for_selector("#jupyterlab-splash", state="detached")
    page.wait_for_function(
        f"getComputedStyle(document.querySelector('{PANEL}')).backgroundColor !== '{light}'"
    )
    _shot(page, "11-dark-theme")


def _background(page: Any) -> str:
    return str(page.locator(PANEL).evaluate("node => getComputedStyle(node).backgroundColor"))


def test_always_allow_writes_the_rule_to_the_chosen_layer(
    page: Any, lab: LabServer, provider: ProviderServer
) -> None:
    pipeline = lab.root / "pipeline.py"
    first = pipeline.read_text().splitlines()[0]
    _edit_turn(provider, first, "RATE = 6", "RATE is 6.")
    _panel(page, ".jp-zengine-input").fill("Set RATE to 6")
    _panel(page, ".jp-zengine-input").press("Enter")
    prompt = _panel(page, ".jp-zengine-approval").last
    prompt.locator(".jp-zengine-always").wait_for()
    prompt.locator(".jp-zengine-layer-select").select_option("local")
    prompt.locator(".jp-zengine-always").click()
    prompt.locator(".jp-zengine-approval-outcome").wait_for()
    _wait_turn_over(page)
    assert pipeline.read_text().startswith("RATE = 6")
    local = lab.root / ".z-engine" / "settings.local.toml"
    assert "pipeline.py" in local.read_text()


def test_rewind_conversation_drops_the_message_and_keeps_the_files(
    page: Any, lab: LabServer
) -> None:
    pipeline = lab.root / "pipeline.py"
    files = pipeline.read_text()
    users = _panel(page, ".jp-zengine-item-user")
    count = users.count()
    assert _last_user(page) == "Set RATE to 6"
    rewind(users.last, "conversation")
    # the kernel sends the rebuilt chat: the message and its turn are gone
    page.wait_for_function(
        f"document.querySelectorAll('{PANEL} .jp-zengine-item-user').length === {count - 1}"
    )
    kept = _panel(page, ".jp-zengine-item-user, .jp-zengine-item-assistant, .jp-zengine-tool")
    assert "Set RATE to 6" not in " ".join(kept.all_inner_texts())
    assert pipeline.read_text() == files
    # what it did, from the rewound event, survives the snapshot that follows it
    outcome = _panel(page, ".jp-zengine-item-rewind .jp-zengine-rewind-result")
    assert outcome.count() == 1
    title = outcome.locator(".jp-zengine-rewind-result-title").inner_text()
    assert title == "Rewound the conversation to before “Set RATE to 6”."
    text = outcome.locator(".jp-zengine-rewind-text").inner_text()
    assert text.startswith('rewound the conversation to before "Set RATE to 6"')
    _shot(page, "12-rewound-conversation")
