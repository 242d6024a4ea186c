"""The ESM source of a zengine widget: ``widget_common.js`` (the wire version, ``el`` and the
request/reply bookkeeping every widget needs) followed by the widget's own file, one module."""

from __future__ import annotations

import functools
from pathlib import Path

__all__ = ["widget_esm"]

_HERE = Path(__file__).parent


@functools.cache
def widget_esm(name: str) -> str:
    """``widget_common.js`` + ``name`` (a file beside this module), read once per process."""
    common = (_HERE / "widget_common.js").read_text(encoding="utf-8")
    return common + (_HERE / name).read_text(encoding="utf-8")
