"""Checks a browser test runs on a view of the chat (Playwright's sync API): element boxes,
axe-core, focus order, and screenshots named the same way everywhere.

- :func:`overflows` / :func:`assert_no_overflow`: every visible element under a root must stay
  inside its container (its parent, or its offset parent when positioned), the root and the
  viewport, horizontally; text must not be cut (``scrollWidth > clientWidth`` in a box that
  clips without an ellipsis), nor an input's placeholder. Boxes that scroll on purpose
  (``overflow: auto|scroll``) may hold wider content; hidden elements are skipped.
- :func:`run_axe` / :func:`assert_axe_clean`: axe-core (``tests/fixtures/npm``, pinned by its
  lock file) on the root; the assert fails on a serious or critical violation, naming the rule,
  the node and the help text.
- :func:`focus_stops` / :func:`assert_focus_order`: Tab through the root from its first
  control; each focused element must come after the previous one in the document (reading
  order), every visible control must be reached, and each stop must have an accessible name
  (computed by axe-core).
- :func:`shot_name` / :func:`shoot`: ``<view>-<width>-<theme>-<state>.png``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from zengine_jupyter.testing._ui_scripts import (
    AXE_RUN,
    FOCUS_STOPS,
    NAME_OF,
    NAMES,
    OVERFLOWS,
)

__all__ = [
    "AXE_JS",
    "SERIOUS",
    "Findings",
    "assert_axe_clean",
    "assert_focus_order",
    "assert_no_overflow",
    "describe_violations",
    "focus_stops",
    "overflows",
    "run_axe",
    "shoot",
    "shot_name",
]

AXE_JS = Path(__file__).parents[2] / "tests/fixtures/npm/node_modules/axe-core/axe.min.js"
"""Where ``scripts/test`` installs axe-core (``npm ci --prefix tests/fixtures/npm``)."""

SERIOUS = ("serious", "critical")


# ---------------------------------------------------------------- element boxes


def overflows(page: Any, root: str, *, tolerance: float = 1.0) -> list[str]:
    """One line per element under ``root`` (a CSS selector: every match is walked) that sticks
    out of its container, the root or the viewport, or whose text or placeholder is cut."""
    found: list[str] = page.evaluate(OVERFLOWS, [root, tolerance])
    return found


def assert_no_overflow(page: Any, root: str, *, tolerance: float = 1.0, what: str = "") -> None:
    """Fail naming each element (short CSS path, its text) that overflows (:func:`overflows`)."""
    found = overflows(page, root, tolerance=tolerance)
    assert page.locator(root).count(), f"{root}: no such element on the page"
    if found:
        head = f"{what or root}: {len(found)} element(s) overflow"
        raise AssertionError("\n  ".join([head, *found[:25]]))


# ---------------------------------------------------------------- axe-core


def _inject_axe(page: Any) -> None:
    if page.evaluate("() => typeof window.axe === 'object'"):
        return
    if not AXE_JS.exists():
        import pytest

        from zengine_jupyter.testing.components import in_ci

        reason = "axe-core is not installed; run: npm ci --prefix tests/fixtures/npm"
        if in_ci():
            pytest.fail(f"CI=true and {reason}", pytrace=False)
        pytest.skip(reason)
    page.add_script_tag(path=str(AXE_JS))


def run_axe(page: Any, root: str, *, rules: dict[str, bool] | None = None) -> list[dict[str, Any]]:
    """axe-core's violations inside ``root`` (all impacts): ``{id, impact, help, nodes: [{target,
    html, summary}]}``; ``rules`` turns rules on or off by id."""
    _inject_axe(page)
    options = {"resultTypes": ["violations"], "rules": {k: {"enabled": v} for k, v in
                                                        (rules or {}).items()}}  # fmt: skip
    found: list[dict[str, Any]] = page.evaluate(AXE_RUN, [root, options])
    return found


def describe_violations(violations: list[dict[str, Any]]) -> list[str]:
    """One line per violating node: rule id, impact, node and help."""
    return [
        f"axe {v['id']} ({v['impact']}): {n['target']} {n['html']!r}: {v['help']}. {n['summary']}"
        for v in violations
        for n in v["nodes"]
    ]


def assert_axe_clean(page: Any, root: str, *, what: str = "") -> list[dict[str, Any]]:
    """Fail on a serious or critical axe-core violation in ``root``; all violations returned."""
    found = run_axe(page, root)
    bad = [v for v in found if v["impact"] in SERIOUS]
    if bad:
        lines = describe_violations(bad)
        raise AssertionError("\n  ".join([f"{what or root}: axe-core found", *lines[:25]]))
    return found


# ---------------------------------------------------------------- focus order


def focus_stops(
    page: Any, root: str, *, limit: int = 200
) -> tuple[list[dict[str, Any]], list[str]]:
    """Tab from the first control of ``root`` until focus leaves it: the stops (each ``{path,
    index, name}``: its short CSS path, its place in document order among the root's elements,
    its accessible name) and the visible controls in document order (their paths)."""
    _inject_axe(page)  # its accessible-name computation
    controls: list[str] = page.evaluate(FOCUS_STOPS, [root, True])
    if not controls:
        return [], []
    stops: list[dict[str, Any]] = []
    for i in range(limit):
        stop = page.evaluate(NAME_OF, [root, i])
        if stop is None:
            break
        stops.append(stop)
        page.keyboard.press("Tab")
    for stop, name in zip(stops, page.evaluate(NAMES), strict=True):
        stop["name"] = name
    return stops, controls


def assert_focus_order(page: Any, root: str, *, what: str = "") -> list[dict[str, Any]]:
    """Fail when Tab does not follow reading order in ``root``, skips a visible control, or
    stops on an element without an accessible name. Returns the stops."""
    stops, controls = focus_stops(page, root)
    label = what or root
    assert stops, f"{label}: no control to focus"
    order = [stop["index"] for stop in stops]
    back = [
        f"{stops[i - 1]['path']} -> {stops[i]['path']}"
        for i in range(1, len(order))
        if order[i] <= order[i - 1]
    ]
    assert not back, f"{label}: Tab goes against reading order: {back}"
    reached = {stop["path"] for stop in stops}
    missed = [path for path in controls if path not in reached]
    assert not missed, f"{label}: Tab never reaches {missed}"
    nameless = [stop["path"] for stop in stops if not stop["name"].strip()]
    assert not nameless, f"{label}: controls without an accessible name: {nameless}"
    return stops


# ---------------------------------------------------------------- a sweep's findings


class Findings:
    """Problems found by a sweep over views, widths, themes and states, grouped by message:
    the same fault seen at several places is one entry listing them."""

    def __init__(self) -> None:
        self._found: dict[str, list[str]] = {}

    def add(self, where: str, *messages: str) -> None:
        for message in messages:
            self._found.setdefault(message, []).append(where)

    def __bool__(self) -> bool:
        return bool(self._found)

    def lines(self) -> list[str]:
        return [
            f"{message}\n      at: {', '.join(where)}" for message, where in self._found.items()
        ]

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self._found, indent=1))

    def check(self, what: str) -> None:
        """Fail listing every problem found (none: pass)."""
        if self:
            head = f"{what}: {len(self._found)} problem(s)"
            raise AssertionError("\n  ".join([head, *self.lines()]))


# ---------------------------------------------------------------- screenshots


def shot_name(view: str, width: int | str, theme: str, state: str) -> str:
    """``<view>-<width>-<theme>-<state>.png``: lower case, words joined by ``-``."""
    parts = [view, f"{width}px" if isinstance(width, int) else width, theme, state]
    return "-".join(re.sub(r"[^a-z0-9]+", "-", str(p).lower()).strip("-") for p in parts) + ".png"


def shoot(target: Any, folder: Path, view: str, width: int | str, theme: str, state: str) -> Path:
    """A screenshot of ``target`` (a page or a locator) under ``folder`` by :func:`shot_name`."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / shot_name(view, width, theme, state)
    target.screenshot(path=str(path))
    return path
