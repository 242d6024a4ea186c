"""The chat's two views, narrow and wide, in every theme, by element boxes and axe-core
(issue 27, acceptance 1 and 3, "Narrow and wide").

One ``%%agent`` cell runs one turn in real JupyterLab (Debian Chromium) against the local
model provider; the side panel follows it live, so the turn is drawn by the panel and by the
cell's widget. The turn holds a streamed markdown answer with a code block (a long line in
it), thinking, three reads (grouped), a failed read, an Edit with its diff waiting for an
approval; once allowed, a closing answer.

At each state of the turn (:data:`STATES`, in order) the sweep (:func:`_sweep`) checks every
view (:data:`VIEWS`: the panel at 250 px, 600 px and half the window; the cell widget in a
500 px and a 1400 px notebook) in every theme (:data:`THEMES`: light, dark, JupyterLab's
dark high-contrast; and Chromium's forced colours) for: no element sticking out of its
container, the view or the window, no text cut (``ui_checks.assert_no_overflow``); no serious
or critical axe-core violation (``ui_checks.run_axe``); and, in the light theme, Tab following
reading order with a name on every control (``ui_checks.assert_focus_order``). Every problem
of the sweep is gathered and reported at once (and written to ``problems-<state>.json``).
Screenshots: ``.ci-artifacts/chat-views/<view>-<width>-<theme>-<state>.png``.

Then JupyterLab's font sizes go up four steps: the views' text grows with them and still
nothing overflows at the narrowest widths.

To add a state: write a function that brings the page there (it receives the page and the
module's :class:`Turn`), and add a :class:`State` to :data:`STATES` with the selectors that
must be shown in each view at that state; the sweep does the rest.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
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
    change_font_size,
    open_panel,
    run_cell,
    set_notebook_width,
    set_panel_width,
    set_theme,
)
from zengine_jupyter.testing.ui_checks import (
    SERIOUS,
    Findings,
    assert_focus_order,
    describe_violations,
    overflows,
    run_axe,
    shoot,
)

# the first test starts JupyterLab, the kernel and the turn before its sweep
pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(300)]

ARTIFACTS = Path(__file__).resolve().parents[2] / ".ci-artifacts" / "chat-views"
WAIT_MS = 60_000
WINDOW = (1400, 900)
PROMPT = "Tidy the rate pipeline and explain the change"
LONG_NAME = "a_rather_long_module_name_for_the_rate_pipeline_that_will_not_fit.py"
ANSWER = (
    "I'll read the **pipeline** first. The rate is set like this:\n\n"
    "```python\nRATE = 1  # the rate, applied by scaled(); a long comment that runs far past "
    "the width of a narrow panel\n\ndef scaled(x):\n    return x * RATE\n```\n\n"
    "Then I'll change it in `pipeline.py`."
)
CLOSING = "Done: **RATE** is 2. The table:\n\n| name | value |\n|---|---|\n| RATE | 2 |\n"
TURN_WIDGET = ".jp-zengine-widget.jp-zengine-widget-turn"


# ---------------------------------------------------------------- the sweep's data


@dataclass(frozen=True)
class View:
    """A view to check: its root element, the widths to check it at (``"half"``: half the
    window) and how the page is brought to one of them."""

    name: str
    root: str
    widths: tuple[int | str, ...]
    resize: Callable[[Any, int | str], None]


def _panel_at(page: Any, width: int | str) -> None:
    set_panel_width(page, WINDOW[0] // 2 if width == "half" else int(width), viewport=WINDOW)


def _notebook_at(page: Any, width: int | str) -> None:
    set_notebook_width(page, int(width))
    cell(page, 1).locator(TURN_WIDGET).scroll_into_view_if_needed()


VIEWS = (
    View("panel", PANEL, (250, 600, "half"), _panel_at),
    View("cell", f".jp-NotebookPanel:not(.lm-mod-hidden) {TURN_WIDGET}", (500, 1400), _notebook_at),
)


@dataclass(frozen=True)
class Theme:
    """A JupyterLab theme (``lab_views.THEMES`` key), optionally under forced colours."""

    name: str
    lab: str
    forced: bool = False


THEMES = (
    Theme("light", "light"),
    Theme("dark", "dark"),
    Theme("contrast", "contrast"),
    Theme("forced", "light", forced=True),  # Windows high contrast: Chromium's forced colours
)


@dataclass
class Turn:
    """What the states share: the page and the provider."""

    page: Any
    provider: ProviderServer
    notes: dict[str, Any] = field(default_factory=dict)
    theme: str = "light"
    """The theme shown now (a :data:`THEMES` name)."""
    at: tuple[str, int | str] | None = None
    """The view and width the page is sized for now (None: unknown)."""


@dataclass(frozen=True)
class State:
    """A point of the turn to sweep: how to get there from the previous state, and what
    each view must show there (selectors, by view name)."""

    name: str
    enter: Callable[[Turn], None]
    expect: dict[str, tuple[str, ...]]
    themes: tuple[str, ...] = tuple(theme.name for theme in THEMES)
    """The themes to sweep at this state (each costs a few seconds: the file keeps under
    ~3 min); the light theme also checks focus order."""


def _start_turn(turn: Turn) -> None:
    page = turn.page
    reads = tuple(ScriptedToolCall("Read", {"path": p}) for p in ("pipeline.py", "rates.py",
                                                                  LONG_NAME))  # fmt: skip
    edit = {"path": "pipeline.py", "old_string": "RATE = 1", "new_string": "RATE = 2"}
    turn.provider.add(
        Reply(thinking=("The rate lives in pipeline.py.",), text=(ANSWER,), tool_calls=reads),
        Reply(text=("Is there a config?",),
              tool_calls=(ScriptedToolCall("Read", {"path": "missing/config.toml"}),)),
        Reply(tool_calls=(ScriptedToolCall("Edit", edit),)),
        Reply(text=(CLOSING,)),
    )  # fmt: skip
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for()
    run_cell(page, 0)
    cell(page, 0).locator(".jp-zengine-widget-status").wait_for()
    run_cell(page, 1)
    for root in (PANEL, TURN_WIDGET):
        page.locator(f"{root} .jp-zengine-approval .jp-zengine-allow").wait_for()


def _allow(turn: Turn) -> None:
    page = turn.page
    page.locator(f"{TURN_WIDGET} .jp-zengine-approval .jp-zengine-allow").click()
    for root in (PANEL, TURN_WIDGET):  # the panel may be folded away: attached is enough
        page.locator(f'{root} .jp-zengine-turnbar[data-running="false"]').wait_for(state="attached")
        page.locator(f"{root} .jp-zengine-item-assistant", has_text="The table").wait_for(
            state="attached"
        )


def _expand(turn: Turn) -> None:
    """Open every tool line and group (the inputs, results, errors and diffs)."""
    page = turn.page
    _panel_at(page, "half")
    turn.at = ("panel", "half")
    for root in (PANEL, TURN_WIDGET):
        heads = page.locator(
            f'{root} :is(.jp-zengine-tool-head, .jp-zengine-tool-group-head)[aria-expanded="false"]'
        )
        while heads.count():
            heads.first.click()


_TURN = (".jp-zengine-item-assistant pre.jp-zengine-code",
         ".jp-zengine-tool-group", '.jp-zengine-tool[data-state="failed"]',
         '.jp-zengine-tool[data-tool="Edit"] .jp-zengine-diff')  # fmt: skip
_ALLOW = ".jp-zengine-approval .jp-zengine-allow"
STATES = (
    State("approval", _start_turn,
          {"panel": (*_TURN, ".jp-zengine-item-user", _ALLOW, ".jp-zengine-interrupt"),
           "cell": (*_TURN, _ALLOW)}),
    State("done", _allow, {"panel": (*_TURN, ".jp-zengine-approval-outcome"),
                           "cell": (*_TURN, ".jp-zengine-approval-outcome")},
          themes=("light", "dark")),
    State("expanded", _expand, {"panel": (".jp-zengine-tool-input",),
                                "cell": (".jp-zengine-tool-input",)}, themes=("light",)),
)  # fmt: skip


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def provider() -> Iterator[ProviderServer]:
    with provider_in_thread() as server:
        yield server


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory, provider: ProviderServer) -> Iterator[LabServer]:
    require_component("node")  # the panel and the widgets are built by scripts/test
    root = tmp_path_factory.mktemp("project")
    (root / ".git").mkdir()
    (root / "pipeline.py").write_text("RATE = 1\n\n\ndef scaled(x):\n    return x * RATE\n")
    (root / "rates.py").write_text("RATES = {'base': 1}\n")
    (root / LONG_NAME).write_text("# long\n")
    write_notebook(root / "views.ipynb", "%load_ext zengine", f"%%agent\n{PROMPT}")
    home = tmp_path_factory.mktemp("zengine-home")
    write_provider_settings(home, provider.base_url)
    env = {"ZENGINE_HOME": str(home), "ANTHROPIC_API_KEY": "test-key"}
    with running_lab(root, tmp_path_factory.mktemp("lab-state"), env=env) as server:
        yield server


@pytest.fixture(scope="module")
def turn(lab: LabServer, provider: ProviderServer) -> Iterator[Turn]:
    with chromium_page(ARTIFACTS, size=WINDOW, timeout_ms=WAIT_MS, last="last.png") as page:
        page.goto(lab.lab_url("views.ipynb"))
        page.wait_for_selector(".jp-Notebook .jp-Cell")
        open_panel(page, dismiss_kernel_dialog=True)
        yield Turn(page, provider)


# ---------------------------------------------------------------- the sweep


@dataclass(frozen=True)
class _Step:
    theme: Theme
    view: View
    width: int | str
    axe: bool
    focus: bool


def _plan(state: State) -> list[_Step]:
    """The light theme at every width of every view (axe at the narrowest, focus at the
    widest); each other theme at each view's narrowest width, with axe. Layout does not
    change with the theme's colours, so the widths are swept once; the views alternate
    (snake order) so that a resize is not repeated."""
    themes = [theme for theme in THEMES if theme.name in state.themes]
    steps = [
        _Step(theme, view, width, axe=i == 0, focus=i == len(view.widths) - 1)
        for theme in themes[:1]
        for view in VIEWS
        for i, width in enumerate(view.widths)
    ]
    for k, theme in enumerate(themes[1:]):
        for view in VIEWS[::-1] if k % 2 == 0 else VIEWS:
            steps.append(_Step(theme, view, view.widths[0], axe=True, focus=False))
    return steps


def _sweep(turn: Turn, state: State) -> Findings:
    """Each step of the plan: what must be shown, overflow, screenshot, axe, focus."""
    page, found, clock = turn.page, Findings(), _Clock()
    for step in _plan(state):
        view, width, theme = step.view, step.width, step.theme
        if turn.theme != theme.name:
            with clock("theme"):
                page.emulate_media(forced_colors="active" if theme.forced else "none")
                set_theme(page, theme.lab)
            turn.theme = theme.name
        if turn.at != (view.name, width):
            with clock("resize"):
                view.resize(page, width)
            turn.at = (view.name, width)
        where = f"{view.name} {width} {theme.name} {state.name}"
        for selector in state.expect.get(view.name, ()):
            shown = page.locator(f"{view.root} {selector}")
            if not shown.count() or not shown.first.is_visible():
                found.add(where, f"{view.name}: {selector} is not shown")
        with clock("overflow"):
            found.add(where, *(f"{view.name}: {o}" for o in overflows(page, view.root)))
        with clock("screenshot"):
            shoot(page.locator(view.root), ARTIFACTS, view.name, width, theme.name, state.name)
        if step.axe:
            with clock("axe"):
                bad = [v for v in run_axe(page, view.root) if v["impact"] in SERIOUS]
            found.add(where, *(f"{view.name}: {v}" for v in describe_violations(bad)))
        if step.focus:
            with clock("focus"):
                try:
                    stops = assert_focus_order(page, view.root, what=view.name)
                    turn.notes[f"{where} focus stops"] = len(stops)
                except AssertionError as error:
                    found.add(where, str(error))
    found.write(ARTIFACTS / f"problems-{state.name}.json")
    turn.notes[f"{state.name} seconds"] = clock.spent
    (ARTIFACTS / "notes.json").write_text(json.dumps(turn.notes, indent=1))
    return found


class _Clock:
    """Seconds spent per kind of step (written to notes.json: the sweep must stay quick)."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}

    @contextlib.contextmanager
    def __call__(self, what: str) -> Iterator[None]:
        start = time.monotonic()
        try:
            yield
        finally:
            self.spent[what] = round(self.spent.get(what, 0.0) + time.monotonic() - start, 2)


@pytest.mark.parametrize("state", STATES, ids=[s.name for s in STATES])
def test_views_fit_and_are_accessible(turn: Turn, state: State) -> None:
    state.enter(turn)
    _sweep(turn, state).check(f"the chat views at {state.name}")


SCALED = {
    "panel": (".jp-zengine-item-assistant .jp-RenderedMarkdown p", ".jp-zengine-input",
              ".jp-zengine-tool-name", ".jp-zengine-send", ".jp-zengine-meta",
              ".jp-zengine-diff", ".jp-zengine-title"),
    "cell": (".jp-zengine-item-assistant .jp-RenderedMarkdown p", ".jp-zengine-tool-name",
             ".jp-zengine-meta", ".jp-zengine-diff"),
}  # fmt: skip
"""Text that must grow with JupyterLab's font sizes, by view."""


def _font_sizes(page: Any) -> dict[str, float]:
    size = "n => parseFloat(getComputedStyle(n).fontSize)"
    return {
        f"{view.name} {selector}": float(
            page.locator(f"{view.root} {selector}").first.evaluate(size)
        )
        for view in VIEWS
        for selector in SCALED[view.name]
    }


def test_text_scales_with_the_font_settings_and_still_fits(turn: Turn) -> None:
    """Four steps up of the UI, content and code font sizes: every text of :data:`SCALED`
    grows by a fifth or more, and the views still fit at their narrowest widths."""
    page, found = turn.page, Findings()
    before = _font_sizes(page)
    sizes = change_font_size(page, 4)  # not undone (each step is a settings save): runs last
    after = _font_sizes(page)
    for view in VIEWS:
        view.resize(page, view.widths[0])
        where = f"{view.name} {view.widths[0]} light large-font"
        found.add(where, *(f"{view.name}: {o}" for o in overflows(page, view.root)))
        shoot(page.locator(view.root), ARTIFACTS, view.name, view.widths[0], "light",
              "large-font")  # fmt: skip
    turn.at = None
    for what, px in before.items():
        if after[what] < px * 1.2:
            found.add("light large-font", f"{what}: {px}px -> {after[what]}px with {sizes}")
    found.check("the views at a larger font")
