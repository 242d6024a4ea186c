"""Every module of the package imported, and every subclass of a class found: for checks that
must see all of them (each pydantic model builds; the tools' schema table is current)."""

from __future__ import annotations

import importlib
import pkgutil
from typing import TypeVar

import zengine_jupyter

__all__ = ["ELSEWHERE", "import_all", "subclasses"]

T = TypeVar("T")

ELSEWHERE = ("zengine_jupyter.jupyter_ai",)
"""Packages that import only in another environment (jupyter-ai's plugin, in its own venv)."""


def import_all() -> None:
    """Import every module of ``zengine_jupyter`` but programs (``__main__``) and
    :data:`ELSEWHERE`."""
    for info in pkgutil.walk_packages(zengine_jupyter.__path__, "zengine_jupyter."):
        if not info.name.endswith("__main__") and not info.name.startswith(ELSEWHERE):
            importlib.import_module(info.name)


def subclasses(cls: type[T]) -> list[type[T]]:
    """Every class below ``cls`` (at any depth) defined in ``zengine_jupyter``."""
    found: list[type[T]] = []
    todo = list(cls.__subclasses__())
    while todo:
        sub = todo.pop()
        todo.extend(sub.__subclasses__())
        if sub.__module__.startswith("zengine_jupyter"):
            found.append(sub)
    return found
