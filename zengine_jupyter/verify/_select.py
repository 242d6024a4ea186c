"""Which checks are relevant to the paths a turn changed.

A path selects, per ecosystem, the checks of the deepest folder that holds it: a change
inside one package of a monorepo selects that package's checks, not its siblings' nor
the root's. The notebooks check is selected by a change to a notebook or inside a folder
that holds one of its notebooks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from zengine_jupyter.protocol import CheckSpec

__all__ = ["select_checks"]


def _norm(path: str) -> str:
    path = path.replace("\\", "/").strip("/")
    while path.startswith("./"):
        path = path[2:]
    return path


def _depth_if_contains(folder: str, path: str) -> int | None:
    """Depth of ``folder`` when it holds ``path``, else None."""
    folder = _norm(folder)
    if folder in ("", "."):
        return 0
    if path == folder or path.startswith(folder + "/"):
        return folder.count("/") + 1
    return None


def _notebook_folders(check: CheckSpec) -> list[str]:
    args = check.command if isinstance(check.command, list) else check.command.split()
    base = _norm(check.cwd)
    folders = []
    for arg in args:
        if arg.endswith(".ipynb"):
            parent = _norm(arg).rpartition("/")[0]
            folders.append("/".join(p for p in (base if base != "." else "", parent) if p))
    return folders


def select_checks(checks: Sequence[CheckSpec], changed: Iterable[str]) -> list[CheckSpec]:
    """The checks relevant to ``changed`` (root-relative paths), in ``checks``' order."""
    chosen: set[str] = set()
    paths = [_norm(p) for p in changed]
    for path in paths:
        best: dict[str, tuple[int, list[str]]] = {}
        for check in checks:
            if check.ecosystem == "notebooks":
                if path.endswith(".ipynb") or any(
                    _depth_if_contains(f or ".", path) is not None for f in _notebook_folders(check)
                ):
                    chosen.add(check.id)
                continue
            depth = _depth_if_contains(check.cwd, path)
            if depth is None:
                continue
            current = best.get(check.ecosystem)
            if current is None or depth > current[0]:
                best[check.ecosystem] = (depth, [check.id])
            elif depth == current[0]:
                current[1].append(check.id)
        for _depth, ids in best.values():
            chosen.update(ids)
    return [c for c in checks if c.id in chosen]
