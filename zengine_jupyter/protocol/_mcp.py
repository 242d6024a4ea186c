"""What the engine reports about MCP servers: the start-up notice and the ``/mcp`` table."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict

from zengine_jupyter.protocol._data_model import DataModel

__all__ = ["McpServerState", "McpServerStatus", "McpTransportKind"]

McpServerState = Literal[
    "starting", "ready", "failed", "disconnected", "stopped", "withheld", "disabled"
]
"""``starting`` connecting in the background; ``ready`` tools listed; ``failed`` could not start
(see ``reason``); ``disconnected`` it dropped after being ready: its tools stay listed and the next
call reconnects it once; ``stopped`` closed by us; ``withheld`` a project-defined server in an
untrusted workspace; ``disabled`` ``enabled = false`` in its entry."""

McpTransportKind = Literal["stdio", "http"]


class McpServerStatus(DataModel):
    """One server's line in the notice and in ``/mcp``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    transport: McpTransportKind
    state: McpServerState
    reason: str | None = None
    """Why it failed, dropped or is withheld; never contains a secret."""
    tool_count: int = 0
    """Tools the agent gets from it (after ``disabled_tools``)."""
    origin: str | None = None
    """Which settings layer defined it (``user``, ``project``), when the hub knows."""
    protocol_version: str | None = None
