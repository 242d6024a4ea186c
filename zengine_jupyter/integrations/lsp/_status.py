"""The ``/lsp`` view as text (frontends may render ``LspServerStatus`` rows their own way)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from zengine_jupyter.protocol import LspServerStatus

__all__ = ["render_status"]

_STATES = {
    "not_started": "not started",
    "not_installed": "not installed",
}


def render_status(rows: Sequence[LspServerStatus]) -> str:
    """One line per server: name, state, file types, then what helps (pid, why, install)."""
    if not rows:
        return "No language servers are configured."
    width = max(len(r.name) for r in rows)
    lines: list[str] = []
    for row in rows:
        state = _STATES.get(row.state, row.state)
        facts: list[str] = [row.version] if row.version else []
        if row.pid is not None:
            facts.append(f"pid {row.pid}, {row.open_documents} open file(s)")
        if row.restarts:
            facts.append(f"restarted {row.restarts}x")
        if row.detail:
            facts.append(row.detail)
        if row.state == "not_installed" and row.install:
            facts.append(f"install: {row.install}")
        origin = "" if row.builtin else " [lsp.servers]"
        tail = f" - {'; '.join(facts)}" if facts else ""
        lines.append(f"{row.name:<{width}}  {state:<13} {' '.join(row.file_types)}{origin}{tail}")
    return "\n".join(lines)
