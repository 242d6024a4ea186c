"""What the status widget shows beyond the cheap line: trust, withheld settings, provider and
model, the sandbox backend and the MCP servers configured.

This loads the settings (pydantic) and may probe the sandbox once (cached by the host layer),
so it is imported on first use only: when a view asks, or on ``%zengine``. Details are the
JSON of a :class:`~zengine_jupyter.protocol.StatusDetails` (they are a widget trait).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from typing import TYPE_CHECKING, Any

from zengine_jupyter.protocol import StatusDetails

if TYPE_CHECKING:
    from pathlib import Path

    from zengine_jupyter.config import EffectiveSettings, Settings

__all__ = ["details_async", "details_lines", "details_sync", "settings_details"]

_SANDBOX_PROBE_S = 10.0


def settings_details(root: Path) -> tuple[dict[str, Any], bool]:
    """The settings part (blocking: reads a few small files) and whether the sandbox is on."""
    from zengine_jupyter.config import load_settings

    effective = load_settings(root)
    s = effective.settings
    details: dict[str, Any] = {
        "trusted": effective.trusted,
        "trust_problem": effective.trust_problem,
        "withheld": [w.model_dump(mode="json") for w in effective.withheld],
        "provider": s.provider.kind,
        "base_url": s.provider.base_url,
        "model": s.model.main,
        "replay": _replay(s),
        "mcp": _mcp_servers(effective),
        "issues": [issue.describe() for issue in effective.issues],
    }
    return details, s.shell.sandbox.enabled


def _replay(settings: Settings) -> str | None:
    """The cassette the chats would replay (no key, a cassette set), else None."""
    from zengine_jupyter.engine import provider_options
    from zengine_jupyter.llm import replay_cassette

    cassette = replay_cassette(provider_options(settings))
    return str(cassette) if cassette else None


def _mcp_servers(effective: EffectiveSettings) -> list[dict[str, Any]]:
    servers = []
    for name, server in effective.settings.mcp.servers.items():
        origin = effective.source_of(f"mcp.servers.{name}")
        servers.append({"name": name, "origin": origin, "withheld": False,
                        "enabled": server.enabled})  # fmt: skip
    known = {s["name"] for s in servers}
    for item in effective.withheld:
        parts = item.key.split(".")
        if parts[:2] == ["mcp", "servers"] and len(parts) > 2 and parts[2] not in known:
            known.add(parts[2])
            servers.append({"name": parts[2], "origin": item.layer, "withheld": True,
                            "enabled": True})  # fmt: skip
    return servers


async def _sandbox(enabled: bool) -> dict[str, Any]:
    if not enabled:
        return {"enabled": False, "backend": None,
                "reason": "commands run on the host (shell.sandbox.enabled = false)"}  # fmt: skip
    from zengine_jupyter.host.sandbox import detect_backend

    backend = await detect_backend()  # one trivial sandboxed command, cached per process
    reason = None
    if backend.notice is not None:
        reason = f"{backend.notice.reason}; {backend.notice.fix}"
    return {"enabled": True, "backend": backend.name if backend.available else None,
            "reason": reason}  # fmt: skip


async def details_async(root: Path) -> dict[str, Any]:
    """Every detail, without blocking the loop (the settings load in a worker thread)."""
    details, enabled = await asyncio.to_thread(settings_details, root)
    details["sandbox"] = await _sandbox(enabled)
    return _typed(details)


def details_sync(root: Path) -> dict[str, Any]:
    """Every detail, blocking (``%zengine``, when the user asks): the sandbox probe runs on
    its own loop in a worker thread, since the kernel's loop is busy running this cell."""
    details, enabled = settings_details(root)
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="zengine-status") as pool:
        future = pool.submit(asyncio.run, _sandbox(enabled))
        details["sandbox"] = future.result(timeout=_SANDBOX_PROBE_S + 5)
    return _typed(details)


def _typed(details: dict[str, Any]) -> dict[str, Any]:
    """The details checked by their model, as the JSON the view reads."""
    return StatusDetails.model_validate(details).model_dump(mode="json")


def details_lines(details: dict[str, Any], *, dismissed: bool) -> list[str]:
    """The details in plain text (the status's text/plain fallback)."""
    lines = []
    if details["trusted"]:
        lines.append("trust: this workspace is trusted")
    else:
        withheld = ", ".join(f"{w['key']} ({w['layer']})" for w in details["withheld"])
        problem = f" ({details['trust_problem']})" if details.get("trust_problem") else ""
        lines.append(f"trust: not trusted{problem}" + (f"; withheld: {withheld}" if withheld
                     else "") + ("" if dismissed else "; `%agent /trust` to trust it"))  # fmt: skip
    model = details["model"] or "the provider's default model"
    where = f" at {details['base_url']}" if details["base_url"] else ""
    if details.get("replay"):
        lines.append(f"model: replay of a recorded session ({details['replay']}; no model is "
                     "called)")  # fmt: skip
    else:
        lines.append(f"model: {model} ({details['provider']} provider{where})")
    sandbox = details["sandbox"]
    if sandbox["backend"]:
        lines.append(f"sandbox: {sandbox['backend']}")
    else:
        lines.append(f"sandbox: off: {sandbox['reason']}")
    servers = [s["name"] + (" (withheld)" if s["withheld"] else "") +
               ("" if s["enabled"] else " (disabled)") for s in details["mcp"]]  # fmt: skip
    lines.append("MCP servers: " + (", ".join(servers) if servers else "none configured"))
    lines += [f"settings: {issue}" for issue in details["issues"]]
    return lines
