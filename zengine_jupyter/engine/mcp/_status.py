"""The start-up notice, the ``/mcp`` table and a reload's account, as plain text."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Collection, Sequence

    from zengine_jupyter.engine.mcp._hub import McpReconcileReport
    from zengine_jupyter.protocol import McpServerStatus

__all__ = ["describe_reconcile", "render_notice", "render_table"]


def describe_reconcile(report: McpReconcileReport, known: Collection[str]) -> list[str]:
    """A settings reload's MCP part for its notice: ``mcp server 'x' added`` (a new entry),
    ``started`` (an entry now allowed: the folder was trusted, ``enabled`` set), ``restarted``,
    ``stopped``; the servers left running are not named."""
    out = [f"mcp server '{n}' {'started' if n in known else 'added'}" for n in report.started]
    out += [f"mcp server '{n}' restarted" for n in report.restarted]
    out += [f"mcp server '{n}' stopped" for n in report.stopped]
    return out


def render_notice(statuses: Sequence[McpServerStatus]) -> str | None:
    """One line: the ready servers (with tool counts), the failed ones with their reasons.

    ``None`` when there is nothing to say (no servers, or only disabled ones).
    """
    ready = [f"{s.name} ({s.tool_count} tools)" for s in statuses if s.state == "ready"]
    failed = [f"{s.name}: {s.reason or 'unknown error'}" for s in statuses if s.state == "failed"]
    starting = [s.name for s in statuses if s.state == "starting"]
    withheld = [s.name for s in statuses if s.state == "withheld"]
    parts: list[str] = []
    if ready:
        parts.append("ready: " + ", ".join(ready))
    if failed:
        parts.append("failed: " + "; ".join(failed))
    if starting:
        parts.append("still starting: " + ", ".join(starting))
    if withheld:
        parts.append("not started until you trust this workspace: " + ", ".join(withheld))
    return "MCP servers " + " · ".join(parts) if parts else None


def render_table(statuses: Sequence[McpServerStatus]) -> str:
    """``/mcp``: one row per server (name, transport, origin, state, tools, reason)."""
    if not statuses:
        return "No MCP servers configured (add [mcp.servers.NAME] to your settings)."
    header = ("server", "transport", "from", "state", "tools", "details")
    rows = [
        (
            s.name,
            s.transport,
            s.origin or "-",
            s.state,
            str(s.tool_count) if s.state in ("ready", "disconnected") else "-",
            s.reason or "",
        )
        for s in statuses
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header) - 1)]
    lines = []
    for r in [header, *rows]:
        cells = [r[i].ljust(widths[i]) for i in range(len(widths))]
        lines.append("  ".join([*cells, r[-1]]).rstrip())
    return "\n".join(lines)
