"""Driving JupyterLab's chrome around the zengine views in a browser test (Playwright's sync
API): open the side panel, size it, size the notebook, switch themes and font sizes, run a
cell, choose a rewind, and measure text contrast. Shared by the browser tests in ``tests/e2e``."""

from __future__ import annotations

import contextlib
import re
from typing import Any

__all__ = [
    "PANEL",
    "THEMES",
    "cell",
    "change_font_size",
    "colour",
    "contrast",
    "luminance",
    "open_panel",
    "rewind",
    "run_cell",
    "set_notebook_width",
    "set_panel_width",
    "set_side_width",
    "set_theme",
    "settle",
]

PANEL = "#zengine-panel"
THEMES = {
    "light": "JupyterLab Light",
    "dark": "JupyterLab Dark",
    "contrast": "JupyterLab Dark High Contrast",
}
"""Short names of JupyterLab 4's own themes (``contrast``: its high-contrast theme)."""

FONT_KEYS = ("ui-font-size1", "content-font-size1", "code-font-size")


def open_panel(page: Any, *, dismiss_kernel_dialog: bool = False) -> Any:
    """Open the zengine side panel from the right side bar and wait until it follows the
    kernel's chat; returns its locator. ``dismiss_kernel_dialog``: accept a "Select Kernel"
    dialog first when one shows within 3 s."""
    if dismiss_kernel_dialog:
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        with contextlib.suppress(PlaywrightTimeout):
            page.locator(".jp-Dialog .jp-mod-accept").click(timeout=3_000)
    page.locator(f'.jp-SideBar.jp-mod-right .lm-TabBar-tab[data-id="{PANEL[1:]}"]').click()
    page.wait_for_selector(f'{PANEL}[data-state="connected"][data-subscribed="true"]')
    return page.locator(PANEL)


def rewind(message: Any, scope: str) -> None:
    """Choose ``scope`` (code, conversation, both) in the "Rewind…" menu under ``message``, a
    locator of one user message in the panel.

    A snapshot rebuilds the chat's DOM (the comm reconnected, or it fell behind and resynced:
    ``data-snapshots`` counts them), and with it the menu comes back closed; one that lands
    between the two clicks leaves nothing to click. The menu is then opened again, three
    times at most, and the error gives the panel's state at each try."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    toggle = message.locator(".jp-zengine-rewind-toggle")
    choice = message.locator(f".jp-zengine-rewind-{scope}")
    seen: list[object] = []
    for _ in range(3):
        if toggle.get_attribute("aria-expanded") != "true":
            toggle.click()
        try:
            choice.click(timeout=15_000)
            return
        except PlaywrightTimeout:
            seen.append(message.page.locator(PANEL).evaluate("node => ({...node.dataset})"))
    raise AssertionError(f"the Rewind… menu did not stay open for {scope!r}; panel: {seen}")


def set_theme(page: Any, theme: str) -> None:
    """Switch to ``theme`` (a key of :data:`THEMES` or a theme's name) through
    ``apputils:change-theme`` and wait until its stylesheet is applied."""
    name = THEMES.get(theme, theme)
    page.evaluate(
        "name => window.jupyterapp.commands.execute('apputils:change-theme', {theme: name})", name
    )
    page.wait_for_selector(f'body[data-jp-theme-name="{name}"]', state="attached")
    page.wait_for_selector("#jupyterlab-splash", state="detached")
    page.wait_for_function(
        "() => document.fonts.status === 'loaded'"
        " && getComputedStyle(document.body).getPropertyValue('--jp-layout-color1').trim() !== ''"
    )


_FONT_STEP = """async ([c, key, start, step, sign]) => {
  const read = () => parseFloat(getComputedStyle(document.documentElement)
    .getPropertyValue(`--jp-${key}`));
  // JupyterLab's own step: 1px, or 0.1em for a size in em
  const target = parseFloat(start) + sign * step * (/em/.test(start) ? 0.1 : 1);
  if (Number.isNaN(target)) {  // no size set yet: one step, unchecked
    await window.jupyterapp.commands.execute(c, {key});
    return;
  }
  const short = () => sign * (target - read()) > 0.001;
  for (let attempt = 0; attempt < 3 && short(); attempt++) {
    await window.jupyterapp.commands.execute(c, {key});
    for (let i = 0; i < 250 && short(); i++) {
      await new Promise(r => setTimeout(r, 20));
    }
  }
}"""
"""One font-size step of ``change_font_size``: run the command until the variable is ``step``
steps from ``start`` (at most three times, waiting up to 5 s each)."""


def change_font_size(page: Any, steps: int, keys: tuple[str, ...] = FONT_KEYS) -> dict[str, str]:
    """Run ``apputils:incr-font-size`` (``steps`` > 0) or ``decr-font-size`` ``|steps|`` times
    for each of ``keys``; returns the new ``--jp-ui-font-size1`` and content sizes.

    Each step is a settings save that reads the size the last one set, so a step is checked to
    have moved its variable by one step before the next, and run again if it did not (a CI run
    once ended two of four steps short: a save lost, or a late settings event setting a size
    back, on a loaded machine)."""
    command = "apputils:incr-font-size" if steps > 0 else "apputils:decr-font-size"
    sign = 1 if steps > 0 else -1
    for key in keys:
        start = page.evaluate(
            "key => getComputedStyle(document.documentElement).getPropertyValue(`--jp-${key}`)",
            key,
        )
        for step in range(1, abs(steps) + 1):
            page.evaluate(_FONT_STEP, [command, key, start, step, sign])
        page.wait_for_timeout(300)  # a late settings event can set the size back: look again
        page.evaluate(_FONT_STEP, [command, key, start, abs(steps), sign])
    sizes: dict[str, str] = page.evaluate(
        """() => Object.fromEntries(['--jp-ui-font-size1', '--jp-content-font-size1',
             '--jp-code-font-size'].map(v => [v,
             getComputedStyle(document.documentElement).getPropertyValue(v).trim()]))"""
    )
    return sizes


def _width(page: Any, selector: str) -> float:
    return float(page.locator(selector).evaluate("n => n.getBoundingClientRect().width"))


def set_panel_width(page: Any, width: int, *, viewport: tuple[int, int] = (1400, 900)) -> float:
    """Show the side panel ``width`` px wide (in a window of ``viewport``), by dragging the
    split handle at its left as a user does; returns the width reached (within 2 px)."""
    page.evaluate("() => window.jupyterapp.shell.activateById('zengine-panel')")
    return set_side_width(page, PANEL, width, side="right", viewport=viewport)


def set_side_width(
    page: Any,
    selector: str,
    width: int,
    *,
    side: str = "left",
    viewport: tuple[int, int] = (1400, 900),
) -> float:
    """Show the widget ``selector``, open in the ``side`` ("left" / "right") side bar's
    panel, ``width`` px wide (in a window of ``viewport``), by dragging that panel's split
    handle as a user does; returns the width reached (within 2 px)."""
    if page.viewport_size != {"width": viewport[0], "height": viewport[1]}:
        page.set_viewport_size({"width": viewport[0], "height": viewport[1]})
    page.wait_for_function(f"() => document.querySelector('{selector}')?.offsetWidth > 0")
    sign = 1 if side == "right" else -1  # dragging right narrows a right panel
    for _ in range(4):
        now = _width(page, selector)
        if abs(now - width) <= 2:
            return now
        x, y = page.evaluate(
            """side => {
              const box = document.querySelector(`#jp-${side}-stack`).getBoundingClientRect();
              const edge = side === 'right' ? box.left : box.right;
              const handles = [...document.querySelectorAll(
                '#jp-main-split-panel > .lm-SplitPanel-handle')].filter(h => h.offsetWidth);
              const near = handles.map(h => [h, Math.abs((side === 'right'
                ? h.getBoundingClientRect().right : h.getBoundingClientRect().left) - edge)])
                .sort((a, b) => a[1] - b[1])[0][0].getBoundingClientRect();
              return [near.left + near.width / 2, near.top + near.height / 2];
            }""",
            side,
        )
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x + sign * (now - width), y, steps=4)
        page.mouse.up()
        settle(page)
    reached = _width(page, selector)
    assert abs(reached - width) <= 2, f"{selector} is {reached}px wide, not {width}px"
    return reached


def set_notebook_width(page: Any, width: int, *, height: int = 900) -> float:
    """Close the side bars' panels and size the window so the notebook is about ``width`` px
    wide; returns the notebook's width."""
    page.evaluate("() => { window.jupyterapp.shell.collapseRight();"
                  " window.jupyterapp.shell.collapseLeft(); }")  # fmt: skip
    notebook = ".jp-NotebookPanel:not(.lm-mod-hidden)"
    settle(page)
    for _ in range(3):
        now = _width(page, notebook)
        if abs(now - width) <= 2:
            break
        size = page.viewport_size
        page.set_viewport_size({"width": int(size["width"] + width - now), "height": height})
        settle(page)
    return _width(page, notebook)


def settle(page: Any) -> None:
    """Wait two animation frames: Lumino lays out on the frame after a resize."""
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def cell(page: Any, index: int) -> Any:
    """The ``index``-th cell of the notebook shown."""
    return page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell").nth(index)


def run_cell(page: Any, index: int) -> None:
    """Select the ``index``-th cell by its prompt and run it (Ctrl+Enter)."""
    cell(page, index).locator(".jp-InputPrompt").click()
    page.keyboard.press("Control+Enter")


def luminance(value: str) -> float:
    """Relative luminance (0 black .. 1 white) of a computed ``rgb()``/``rgba()`` colour, or
    of a ``color(srgb r g b)`` one (0..1 channels: what a color-mix() ground computes to)."""
    scale = 1.0 if value.startswith("color(srgb") else 255.0
    r, g, b = (float(v) / scale for v in re.findall(r"[\d.]+", value)[:3])

    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)


def colour(locator: Any) -> str:
    """The element's computed text colour."""
    return str(locator.evaluate("node => getComputedStyle(node).color"))


_GROUND = """node => {
  for (let n = node; n; n = n.parentElement) {
    const c = getComputedStyle(n).backgroundColor;
    if (c && !/rgba\\(.*, 0\\)$/.test(c) && c !== 'transparent') return c;
  }
  return 'rgb(255, 255, 255)';
}"""


def contrast(locator: Any) -> float:
    """WCAG contrast ratio of the element's text against the first opaque ground behind it."""
    fore = luminance(colour(locator))
    back = luminance(str(locator.evaluate(_GROUND)))
    return (max(fore, back) + 0.05) / (min(fore, back) + 0.05)
