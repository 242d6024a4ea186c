"""Deno: ``deno.json`` / ``deno.jsonc`` (its ``test`` task if it has one, lint, fmt --check)."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from zengine_jupyter.verify.discovery._project import Folder, ProjectView, make_check

if TYPE_CHECKING:
    from zengine_jupyter.protocol import CheckSpec

__all__ = ["discover"]

_COMMENT = re.compile(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/', re.S)


def discover(project: ProjectView) -> list[CheckSpec]:
    checks: list[CheckSpec] = []
    for folder in project.folders:
        name = next((n for n in ("deno.json", "deno.jsonc") if folder.has(n)), None)
        if name is None:
            continue
        tasks = _tasks(folder, name)
        test = ["deno", "task", "test"] if "test" in tasks else ["deno", "test"]
        checks += [
            make_check("deno", "test", "test", test, folder, "deno"),
            make_check("deno", "lint", "lint", ["deno", "lint"], folder),
            make_check("deno", "fmt", "format", ["deno", "fmt", "--check"], folder),
        ]
        if "check" in tasks:
            checks.append(
                make_check("deno", "check", "typecheck", ["deno", "task", "check"], folder)
            )
    return checks


def _tasks(folder: Folder, name: str) -> dict[str, object]:
    text = folder.read_text(name) or ""
    try:
        config = json.loads(_COMMENT.sub(lambda m: m.group(1) or "", text))
    except ValueError:
        return {}
    tasks = config.get("tasks") if isinstance(config, dict) else None
    return tasks if isinstance(tasks, dict) else {}
