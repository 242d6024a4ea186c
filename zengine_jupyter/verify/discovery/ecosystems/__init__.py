"""One module per ecosystem; each reads build files and returns the checks it finds.

A new ecosystem is a module here with ``discover(project) -> list[CheckSpec]``, listed in
:data:`ECOSYSTEMS` (plus a parser in ``verify/parse`` if its output differs).
"""

from __future__ import annotations

from collections.abc import Callable

from zengine_jupyter.protocol import CheckSpec as _CheckSpec
from zengine_jupyter.verify.discovery._project import ProjectView as _ProjectView
from zengine_jupyter.verify.discovery.ecosystems import (
    _cargo,
    _cmake,
    _deno,
    _go,
    _jvm,
    _make,
    _node,
    _notebooks,
    _python,
)

__all__ = ["ECOSYSTEMS", "Ecosystem"]

Ecosystem = Callable[[_ProjectView], list[_CheckSpec]]
"""Reads a project's folders and returns the checks its build files declare."""

ECOSYSTEMS: dict[str, Ecosystem] = {
    "cargo": _cargo.discover,
    "node": _node.discover,
    "python": _python.discover,
    "go": _go.discover,
    "make": _make.discover,
    "cmake": _cmake.discover,
    "gradle": _jvm.discover_gradle,
    "maven": _jvm.discover_maven,
    "deno": _deno.discover,
    "notebooks": _notebooks.discover,
}
