"""The cell widgets' frontends: ESM bundles built from the panel's TypeScript component library
(``labextension/src/widgets/*.ts`` + ``src/ui/``, bundled by ``labextension/build-widgets.mjs``
into ``_widgets/`` beside this module, shipped in the wheel). The kernel hands them to anywidget
as strings, read once per process: no node at run time.

A checkout whose frontend was never built (an editable install without node) still shows
something: a small ESM that says how to build the widgets, instead of a broken cell.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Literal

__all__ = ["WIDGETS_DIR", "WidgetBundle", "widget_css", "widget_esm"]

WIDGETS_DIR = Path(__file__).parent / "_widgets"
WidgetBundle = Literal["turn", "status", "rewind", "setup"]

_HOW = "run `jlpm build` in labextension/ (scripts/test and scripts/start do it)"


@functools.cache
def widget_esm(name: WidgetBundle) -> str:
    """The bundled ESM of widget ``name`` (or a stand-in that explains the missing build)."""
    path = WIDGETS_DIR / f"{name}.js"
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        message = f"zengine: the cell widgets are not built ({path} is missing): {_HOW}."
        return (
            "export default { render({ el }) { const p = document.createElement('pre');"
            f" p.textContent = {json.dumps(message)}; el.appendChild(p); }} }};\n"
        )


@functools.cache
def widget_css() -> str:
    """The widgets' one stylesheet (the panel's rules plus the widget frame); "" unbuilt."""
    try:
        return (WIDGETS_DIR / "widgets.css").read_text(encoding="utf-8")
    except OSError:
        return ""
