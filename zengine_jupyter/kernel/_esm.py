"""The ESM source of a zengine widget: ``const WIRE = <WIRE_VERSION>;`` (the one wire
version, from ``protocol/_wire_version.py``), then ``widget_common.js`` (``el`` and the
request/reply bookkeeping every widget needs), then the widget's own file: one module."""

from __future__ import annotations

import functools
from pathlib import Path

from zengine_jupyter.protocol import WIRE_VERSION

__all__ = ["widget_esm"]

_HERE = Path(__file__).parent


@functools.cache
def widget_esm(name: str) -> str:
    """The wire version + ``widget_common.js`` + ``name`` (a file beside this module), read
    once per process."""
    common = (_HERE / "widget_common.js").read_text(encoding="utf-8")
    version = f"const WIRE = {WIRE_VERSION}; // protocol/_wire_version.py\n"
    return version + common + (_HERE / name).read_text(encoding="utf-8")
