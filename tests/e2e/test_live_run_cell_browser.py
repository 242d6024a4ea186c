"""RunCell and rewind in the notebook the user has open (issue 23, acceptance 2, 3 and 7).

Real JupyterLab in Debian Chromium, the side panel on the notebook's kernel, the local provider
scripting the agent. Acceptance 2: the agent's RunCell plots with matplotlib in the open
notebook (the notebook path, a visible agent cell): the plot renders in the notebook, the next
model request carries it as an Anthropic image block in the tool_result, and a second run's
stdout and DataFrame summary come back as text. Acceptance 3 (the rewind widget, after a kernel
restart): the agent edits the open notebook live; the kernel restarts; ``%agent /rewind``'s
"Restore code" asks (the notebook has unsaved changes) and puts the open document's cells back
as they were before the turn, from what the chat's folder kept. Acceptance 7: the time from the
kernel sending an edit to the cell being in the page is printed; the per-cell review is
screenshotted with the panel 250 and 600 px wide (``.ci-artifacts/live-review-*.png``).
The OpenAI image format is covered in a real kernel by tests/kernel/test_run_cell.py
(test_a_plot_reaches_the_next_openai_request_as_a_user_image), not in a browser.
"""

from __future__ import annotations

import base64
import contextlib
import json
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
from zengine_jupyter.testing.lab import LabServer, chromium_page, running_lab
from zengine_jupyter.testing.lab_views import open_panel, run_cell, set_panel_width

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(420)]

CI_ARTIFACTS = Path(__file__).resolve().parents[2] / ".ci-artifacts"
ARTIFACTS = CI_ARTIFACTS / "live-run-cell"
WAIT_MS = 60_000
PANEL = "#zengine-panel"
NOTEBOOK = "rates.ipynb"
CELLS = (("cell-x", "x = 1"), ("cell-y", "y = 2"), ("cell-rw", "# rewind here"))
PLOT = "import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.title('rates')\nplt.show()"
FRAME = (
    "import pandas as pd\nprint('rows ready')\n"
    "frame = pd.DataFrame({'rate': [1.5, 2.5, 3.5], 'n': [1, 2, 3]})\nframe"
)
_NB = "window.jupyterapp.shell.currentWidget"
_SOURCES = f"() => {_NB}.content.model.sharedModel.cells.map(c => [c.id, c.getSource()])"
_DIRTY = f"() => {_NB}.context.model.dirty"
_KERNEL = f"{_NB}.sessionContext.session.kernel"
_TIMING = """() => {
  // kernel -> page: when the kernel sent each live edit, when the page got it, when its
  // cell's text was in the page (the kernel and the browser share this machine's clock)
  window.__zedits = [];
  const kernel = KERNEL;
  kernel.anyMessage.connect((_, args) => {
    const msg = args.msg;
    const data = msg.content && msg.content.data;
    if (args.direction !== 'recv' || !data || data.kind !== 'doc_request'
        || data.action !== 'edit' || !data.edit.cell) { return; }
    const text = [].concat(data.edit.cell.source).join('');
    const entry = {sent: Date.parse(msg.header.date), got: Date.now(), seen: 0, text};
    window.__zedits.push(entry);
    const seen = () => [...document.querySelectorAll('.jp-Notebook .jp-Cell .cm-content')]
      .some(n => n.textContent.includes(text));
    const look = () => {
      if (seen()) { entry.seen = Date.now(); } else { requestAnimationFrame(look); }
    };
    look();
  });
}""".replace("KERNEL", _KERNEL)


def _run(code: str, **extra: Any) -> Reply:
    return Reply(tool_calls=(ScriptedToolCall("RunCell", {"code": code, **extra}),))


def _edit(**args: Any) -> ScriptedToolCall:
    return ScriptedToolCall("NotebookEdit", {"path": NOTEBOOK, **args})


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
    import nbformat

    require_component("node")  # the panel is built by scripts/test
    root = tmp_path_factory.mktemp("project")
    (root / ".git").mkdir()
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}  # fmt: skip
    for cell_id, source in CELLS:
        cell = nbformat.v4.new_code_cell(source)
        cell.id = cell_id
        nb.cells.append(cell)
    nbformat.write(nb, root / NOTEBOOK)
    rules = '[permissions]\nallow = ["NotebookEdit", "RunCell"]\n'
    write_provider_settings(home, provider.base_url, rules)
    env = {"ZENGINE_HOME": str(home), "ANTHROPIC_API_KEY": "test-key"}
    with running_lab(root, tmp_path_factory.mktemp("lab-state"), env=env) as server:
        yield server


@pytest.fixture(scope="module")
def page(lab: LabServer) -> Iterator[Any]:
    with chromium_page(ARTIFACTS, size=(1400, 900), timeout_ms=WAIT_MS, last="last.png") as tab:
        console: list[str] = []
        tab.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
        tab.on("pageerror", lambda e: console.append(f"pageerror: {e}"))
        tab.console_lines = console
        tab.goto(lab.lab_url(NOTEBOOK))
        tab.wait_for_selector(".jp-Notebook .jp-Cell")
        open_panel(tab, dismiss_kernel_dialog=True)  # a "Select Kernel" dialog, sometimes
        try:
            yield tab
        except Exception:
            print("\n".join(console[-40:]))
            raise


def _sources(page: Any) -> list[tuple[str, str]]:
    return [(i, s) for i, s in page.evaluate(_SOURCES)]


def _send(page: Any, text: str) -> None:
    box = page.locator(f"{PANEL} .jp-zengine-input")
    box.fill(text)
    box.press("Enter")


def _turn_ended(page: Any, count: int) -> None:
    page.wait_for_function(
        f"() => document.querySelectorAll('{PANEL} .jp-zengine-item-user').length >= {count}"
    )
    page.wait_for_selector(f'{PANEL} .jp-zengine-turnbar[data-running="false"]')


def _tool_result(provider: ProviderServer, index: int) -> dict[str, Any]:
    """The Anthropic ``tool_result`` block request ``index`` answers the last call with."""
    block: dict[str, Any] = provider.requests[index].json["messages"][-1]["content"][0]
    assert block["type"] == "tool_result", block
    return block


def _text_of(block: dict[str, Any]) -> str:
    content = block["content"]
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content)


def _silent(page: Any, expression: str) -> str:
    """``expression``'s text in the notebook's kernel, run silently (not as a cell)."""
    reply: dict[str, Any] = page.evaluate(
        f"""async expression => {{
          const future = {_KERNEL}.requestExecute({{code: '', silent: true,
            store_history: false, user_expressions: {{e: expression}}}});
          return (await future.done).content;
        }}""",
        expression,
    )
    value: dict[str, Any] = reply["user_expressions"]["e"]
    assert value.get("status") == "ok", value
    return str(value["data"]["text/plain"])


# ---------------------------------------------------------------- acceptance 2


def test_the_agents_plot_renders_in_the_notebook_and_reaches_the_model(
    page: Any, provider: ProviderServer
) -> None:
    first = len(provider.requests)
    provider.add(_run(PLOT, after_cell_id="cell-x"), _run(FRAME), Reply(text=("Seen.",)))
    _send(page, "Plot the rates, then show the frame")
    _turn_ended(page, 1)

    # the plot renders in the notebook, in the agent's visible cell after cell-x
    agent_cells = page.locator(".jp-Cell.jp-zengine-agent-cell")
    plotted = agent_cells.filter(has_text="plt.plot").locator(".jp-OutputArea img")
    plotted.wait_for()
    assert plotted.evaluate("img => img.naturalWidth") > 100
    ids = [i for i, _ in _sources(page)]
    assert ids[ids.index("cell-x") + 1].startswith("agent-"), ids
    framed = agent_cells.filter(has_text="pd.DataFrame").locator(".jp-OutputArea")
    assert "rows ready" in framed.inner_text()
    page.screenshot(path=str(ARTIFACTS / "plot-in-notebook.png"))

    # the next request carries the plot as an image block in the tool_result (Anthropic)
    block = _tool_result(provider, first + 1)
    assert "is_error" not in block
    text, image = block["content"]
    assert "as notebook cell agent-" in text["text"], text  # the notebook path, not headless
    assert "image 1 attached: png" in text["text"]
    assert image["type"] == "image"
    assert image["source"]["media_type"] == "image/png"
    png = base64.b64decode(image["source"]["data"])
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    shown = plotted.evaluate("img => img.src").split(",", 1)[1]
    assert base64.b64decode(shown) == png, "not the plot the notebook shows"

    # the second run's stdout and the DataFrame summary come back as text
    framed_text = _text_of(_tool_result(provider, first + 2))
    assert "as notebook cell agent-" in framed_text
    assert "stdout:\nrows ready" in framed_text
    assert "DataFrame shape (3, 2)" in framed_text
    assert "rate: float64, n: int64" in framed_text
    assert "0   1.5  1" in framed_text
    assert _silent(page, "frame.shape") == "(3, 2)"  # ran in the user's kernel

    # both run cells are in the turn's review, as cells the agent added
    review = page.locator(f"{PANEL} .jp-zengine-review").last
    listed = review.locator(".jp-zengine-review-cell")
    assert listed.count() == 2
    assert all(i.startswith("agent-") for i in listed.evaluate_all(
        "items => items.map(n => n.dataset.cellId)"))  # fmt: skip
    assert "+import matplotlib.pyplot as plt" in review.inner_text()


# ---------------------------------------------------------------- acceptance 3 and 7


def _review_shots(page: Any) -> None:
    review = page.locator(f"{PANEL} .jp-zengine-review").last
    for width in (250, 600):
        set_panel_width(page, width, viewport=(1400, 1300))
        review.scroll_into_view_if_needed()
        review.screenshot(path=str(CI_ARTIFACTS / f"live-review-{width}.png"))
        overflow = review.evaluate("n => n.scrollWidth - n.clientWidth")
        assert overflow <= 1, f"the review is {overflow}px wider than the panel at {width}px"


def _restart_kernel(page: Any) -> None:
    page.evaluate(f"async () => {{ await {_KERNEL}.restart(); }}")
    page.wait_for_selector(f'{PANEL}[data-state="connected"]')
    deadline = time.monotonic() + 60
    while True:  # the page reported its open notebooks to the new kernel's registry
        with contextlib.suppress(Exception):
            pages = _silent(
                page,
                "len(__import__('zengine_jupyter.kernel._extension', "
                "fromlist=['x']).controller_for(get_ipython()).live.pages)",
            )
            if pages != "0":
                return
        assert time.monotonic() < deadline, "the page did not report to the new kernel"
        time.sleep(0.5)


def test_a_rewind_from_the_widget_after_a_restart_puts_the_open_notebook_back(
    page: Any, provider: ProviderServer, home: Path
) -> None:
    before_turn = _sources(page)  # unsaved: the agent's run cells are only in the page
    assert page.evaluate(_DIRTY)
    page.evaluate(_TIMING)
    provider.add(
        Reply(tool_calls=(
            _edit(mode="insert", cell_id="cell-x", source="w = 'agent one'"),
            _edit(mode="replace", cell_id="cell-y", source="y = 20"),
            _edit(mode="insert", cell_id="cell-y", source="v = 'agent two'"),
        )),
        Reply(text=("Edited.",)),
    )  # fmt: skip
    _send(page, "Edit the cells")
    _turn_ended(page, 2)
    page.wait_for_function("() => window.__zedits.length === 3 && "
                           "window.__zedits.every(e => e.seen)")  # fmt: skip
    edits = page.evaluate("() => window.__zedits")
    for entry in edits:
        print(f"\nlive edit {entry['text']!r}: kernel sent -> page got "
              f"{entry['got'] - entry['sent']} ms, -> cell visible "
              f"{entry['seen'] - entry['sent']} ms")  # fmt: skip
    assert all(e["seen"] - e["sent"] < 5_000 for e in edits), edits
    review = page.locator(f"{PANEL} .jp-zengine-review").last
    assert review.locator(".jp-zengine-review-cell").count() == 3
    _review_shots(page)
    page.set_viewport_size({"width": 1400, "height": 900})

    _restart_kernel(page)  # the kernel's memory of the turn is gone; the chat's folder is not
    (session,) = [p.parent.name for p in (home / "sessions").glob("*/meta.json")]
    kept = list((home / "sessions" / session / "live").glob("*.json"))
    assert len(kept) == 1, kept  # one notebook, as it was before the edit turn
    rewind_at = [i for i, _ in _sources(page)].index("cell-rw")
    page.evaluate(
        f"([at, text]) => {_NB}.content.model.sharedModel.getCell(at).setSource(text)",
        [rewind_at, f"%agent --session {session} /rewind"],
    )
    run_cell(page, rewind_at)
    points = page.locator(".jp-zengine-widget-rewind .jp-zengine-rewind-point")
    points.nth(1).wait_for()
    points.nth(1).locator("button", has_text="Restore code").click()
    dialog = page.locator(".jp-Dialog", has_text="Put the notebook back?")
    dialog.wait_for()  # the open notebook has unsaved changes: asked first
    dialog.locator(".jp-mod-warn").click()
    page.wait_for_function(
        f"expected => JSON.stringify({_SOURCES.removeprefix('() => ')}) === expected",
        arg=json.dumps(before_turn, separators=(",", ":")),
    )
    assert not page.locator(".jp-Dialog").count()
    # the edit turn's cells are marked put back; the run cells of the turn before stay to review
    assert _review_states(page) == [["pending", "pending"],
                                    ["rejected", "rejected", "rejected"]]  # fmt: skip
    page.screenshot(path=str(ARTIFACTS / "rewound.png"))


# ---------------------------------------------------------------- review across a reload

_REVIEWS = f"""() => [...document.querySelectorAll('{PANEL} .jp-zengine-review')].map(r =>
  [...r.querySelectorAll('.jp-zengine-review-cell')].map(c => c.dataset.state))"""


def _review_states(page: Any) -> list[list[str]]:
    states: list[list[str]] = page.evaluate(_REVIEWS)
    return states


def test_the_review_survives_a_page_reload(page: Any) -> None:
    """The reviews come back under their turns with their states, the cells still to review
    get their marker again, and Reject still works."""
    page.locator(".jp-Notebook").click(position={"x": 5, "y": 5})
    page.keyboard.press("Control+s")
    page.wait_for_function(f"() => !({_DIRTY.removeprefix('() => ')})")
    before = _review_states(page)
    assert before == [["pending", "pending"], ["rejected", "rejected", "rejected"]]
    page.reload()
    page.wait_for_selector(".jp-Notebook .jp-Cell")
    if not page.locator(PANEL).is_visible():
        page.locator('.jp-SideBar.jp-mod-right .lm-TabBar-tab[data-id="zengine-panel"]').click()
    page.wait_for_selector(f'{PANEL}[data-state="connected"][data-subscribed="true"]')
    page.wait_for_function(f"() => document.querySelectorAll('{PANEL} .jp-zengine-review')"
                           ".length === 2")  # fmt: skip
    assert _review_states(page) == before
    first_turn = page.locator(f"{PANEL} .jp-zengine-item-user").first.get_attribute("data-turn-id")
    review = page.locator(f"{PANEL} .jp-zengine-review").first
    assert review.get_attribute("data-turn-id") == first_turn  # under its own turn
    page.wait_for_function(
        "() => document.querySelectorAll('.jp-Cell.jp-zengine-agent-cell').length === 2"
    )
    page.screenshot(path=str(ARTIFACTS / "reloaded.png"))
    framed = review.locator(".jp-zengine-review-cell", has_text="pd.DataFrame")
    cell_id = framed.get_attribute("data-cell-id")
    framed.locator(".jp-zengine-review-reject").click()
    page.wait_for_function(
        f"id => !{_SOURCES.removeprefix('() => ')}.some(([i]) => i === id)", arg=cell_id
    )
    assert _review_states(page)[0] == ["pending", "rejected"]
