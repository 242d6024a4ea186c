"""Makefiles: the ``test``, ``check`` and ``lint`` targets."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from zengine_jupyter.verify.discovery._project import ProjectView, make_check

if TYPE_CHECKING:
    from zengine_jupyter.protocol import CheckKind, CheckSpec

__all__ = ["TARGETS", "discover"]

TARGETS: dict[str, CheckKind] = {"test": "test", "check": "test", "lint": "lint"}
_TARGET = re.compile(r"^([A-Za-z0-9_.\- ]+?)\s*::?(?!=)", re.MULTILINE)


def discover(project: ProjectView) -> list[CheckSpec]:
    checks: list[CheckSpec] = []
    for folder in project.folders:
        name = next((n for n in ("GNUmakefile", "Makefile", "makefile") if folder.has(n)), None)
        if name is None:
            continue
        text = folder.read_text(name) or ""
        defined = {t for m in _TARGET.finditer(text) for t in m.group(1).split()}
        checks += [
            make_check("make", target, kind, ["make", target], folder)
            for target, kind in TARGETS.items()
            if target in defined
        ]
    return checks
