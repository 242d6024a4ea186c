"""What a :class:`Session` is made of, built once by ``Session.open`` (or a test)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path

    from zengine_jupyter.config import EffectiveSettings, McpServerSettings
    from zengine_jupyter.engine._catalog import SharedCatalog
    from zengine_jupyter.engine._extension import SessionExtension
    from zengine_jupyter.engine._ports import ApprovalPort
    from zengine_jupyter.engine.tools import Tool, ToolContext
    from zengine_jupyter.host.checkpoint import ShadowRepository
    from zengine_jupyter.llm import CostMeter, ModelClient, ProviderOptions
    from zengine_jupyter.policy import PermissionGate
    from zengine_jupyter.store import SessionWriter

__all__ = ["SessionParts"]


@dataclass(frozen=True, kw_only=True)
class SessionParts:
    """The parts of one chat. The session copies ``tools`` (it adds Task and the extensions'
    tools to its own dict) and makes the extensions from ``extensions``."""

    id: str
    root: Path
    writer: SessionWriter
    settings: EffectiveSettings
    client: ModelClient
    client_is_ours: bool
    """The session built ``client``: it closes it, and rebuilds it when the model changes."""
    gate: PermissionGate
    meter: CostMeter
    approvals: ApprovalPort
    tools: Mapping[str, Tool[Any]]
    ctx: ToolContext
    shadow: ShadowRepository | None
    provider: ProviderOptions
    notebook: str | None = None
    catalog: SharedCatalog | None = None
    """The model catalog the client prices and caps with (None: the built-in prices only)."""
    extensions: tuple[Callable[[], SessionExtension], ...] = ()
    """Made after the built-in ones (a frontend's own tools, tests)."""
    environ: Mapping[str, str] | None = None
    """The environment the settings were read with (None: the process's); reloads use it."""
    mcp_servers: Mapping[str, McpServerSettings] = field(default_factory=dict)
    """A client's own MCP servers for this chat (``SessionOptions.mcp_servers``)."""
