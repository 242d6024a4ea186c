"""Notebooks: one check that runs every notebook top to bottom in a fresh kernel."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zengine_jupyter.verify.discovery._project import ProjectView, make_check

if TYPE_CHECKING:
    from zengine_jupyter.protocol import CheckSpec

__all__ = ["NOTEBOOKS_MODULE", "discover"]

NOTEBOOKS_MODULE = "zengine_jupyter.verify.notebooks"
"""The entry point the check runs (``python -m`` it); it uses nbclient."""


def discover(project: ProjectView) -> list[CheckSpec]:
    if not project.notebooks:
        return []
    root = project.folder(".")
    if root is None:
        return []
    argv = ["python", "-m", NOTEBOOKS_MODULE, *project.notebooks]
    return [make_check("notebooks", "run", "test", argv, root, "notebooks")]
