"""The chat's MCP servers from its effective settings, each with its origin; and the deferred
tools a resumed chat had loaded."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zengine_jupyter.engine.mcp._catalog import LOAD_MCP_TOOLS
from zengine_jupyter.integrations.mcp import McpServerEntry
from zengine_jupyter.protocol import ConfigError, MessageRecord, ToolResultRecord

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from zengine_jupyter.config import EffectiveSettings, McpServerSettings
    from zengine_jupyter.engine.mcp._hub import McpOrigin
    from zengine_jupyter.protocol import LogRecord

__all__ = ["loaded_in_log", "servers_from_settings"]

_PROJECT_LAYERS = ("project", "local")


def servers_from_settings(
    settings: EffectiveSettings, client: Mapping[str, McpServerSettings] | None = None
) -> tuple[list[tuple[McpServerEntry, McpOrigin]], list[str]]:
    """``[mcp.servers]`` as hub entries with their origin, and problems to show the user.

    Servers from the project's files are ``project``: the hub starts them only when the
    workspace is trusted. While it is not, the settings leave them out (``withheld``); they are
    added back here, as written in the project's layers, so ``/mcp`` and the notice name them.
    ``client``: servers a client handed the chat (ACP's ``mcpServers``): ``user`` servers that
    replace a settings server of the same name.
    """
    out: list[tuple[McpServerEntry, McpOrigin]] = []
    problems: list[str] = []
    client = client or {}
    for name, server in client.items():
        _add(out, problems, name, server.model_dump(), "user")
    for name, server in settings.settings.mcp.servers.items():
        if name in client:
            continue
        origin: McpOrigin = (
            "project" if settings.source_of(f"mcp.servers.{name}") in _PROJECT_LAYERS else "user"
        )
        _add(out, problems, name, server.model_dump(), origin)
    if not settings.trusted:
        known = {entry.name for entry, _ in out} | set(client)
        for name, table in _withheld_tables(settings).items():
            if name not in known:
                _add(out, problems, name, table, "project")
    return out, problems


def _add(
    out: list[tuple[McpServerEntry, McpOrigin]],
    problems: list[str],
    name: str,
    table: Mapping[str, Any],
    origin: McpOrigin,
) -> None:
    try:
        out.append((McpServerEntry.from_mapping(name, table), origin))
    except ConfigError as exc:
        problems.append(str(exc))


def _withheld_tables(settings: EffectiveSettings) -> dict[str, Mapping[str, Any]]:
    """``[mcp.servers.NAME]`` tables the project's layers set (the later layer wins)."""
    withheld = {w.key.removeprefix("mcp.servers.") for w in settings.withheld}
    tables: dict[str, Mapping[str, Any]] = {}
    for layer in settings.layers:
        if layer.name not in _PROJECT_LAYERS:
            continue
        servers = layer.data.get("mcp", {}).get("servers", {})
        for name, table in servers.items():
            if name in withheld and isinstance(table, dict):
                tables[name] = table
    return tables


def loaded_in_log(transcript: Iterable[LogRecord]) -> list[str]:
    """Names that successful ``LoadMcpTools`` calls loaded in a chat (to replay on resume)."""
    asked: dict[str, list[str]] = {}
    loaded: list[str] = []
    for record in transcript:
        if isinstance(record, MessageRecord):
            for call in record.tool_calls:
                if call.name == LOAD_MCP_TOOLS:
                    raw = call.input.get("names", [])
                    asked[call.id] = [raw] if isinstance(raw, str) else [str(n) for n in raw]
        elif isinstance(record, ToolResultRecord) and record.tool_call_id in asked:
            names = asked.pop(record.tool_call_id)
            if not record.is_error:
                loaded.extend(names)
    return list(dict.fromkeys(loaded))
