"""Lazy package exports, so that ``%load_ext zengine`` pays only for what it uses.

A package lists which submodule defines each public name; the submodule is imported
the first time the name is read (PEP 562 module ``__getattr__``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, where: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``; ``where`` maps a name to its submodule."""

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        globals_ = importlib.import_module(package).__dict__
        globals_[name] = value  # later reads skip __getattr__
        return value

    def __dir__() -> list[str]:
        return sorted(where)

    return __getattr__, __dir__
