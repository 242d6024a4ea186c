"""CMake: configure, build and run ``ctest`` in a ``build`` folder when tests are declared."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from zengine_jupyter.verify.discovery._project import ProjectView, make_check

if TYPE_CHECKING:
    from zengine_jupyter.protocol import CheckSpec

__all__ = ["BUILD", "CTEST", "discover"]

BUILD = "cmake -S . -B build && cmake --build build"
CTEST = f"{BUILD} && ctest --test-dir build --output-on-failure"
_TESTS = re.compile(r"^\s*(enable_testing|add_test|include\s*\(\s*CTest)\b", re.I | re.M)


def discover(project: ProjectView) -> list[CheckSpec]:
    checks: list[CheckSpec] = []
    roots: list[str] = []
    for folder in project.folders:
        if not folder.has("CMakeLists.txt") or any(folder.is_inside(r) for r in roots):
            continue  # subdirectories are part of the top-level project
        roots.append(folder.rel)
        checks.append(make_check("cmake", "build", "build", BUILD, folder))
        if _TESTS.search(folder.read_text("CMakeLists.txt") or ""):
            checks.append(make_check("cmake", "ctest", "test", CTEST, folder, "ctest"))
    return checks
