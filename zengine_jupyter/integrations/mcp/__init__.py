"""MCP client side: server entries, tool naming, and McpManager over the ``mcp`` SDK.

Importing this package does not import the SDK (it costs ~0.6 s): only a manager's first
start does (``_connection.py`` is the one module that imports ``mcp``). Names load lazily (as
``protocol``'s do): a chat with no MCP server loads only what its settings touch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zengine_jupyter.protocol import lazy_exports as _lazy_exports

if TYPE_CHECKING:
    from zengine_jupyter.integrations.mcp._entry import (
        McpServerEntry,
        expand_env,
        expand_values,
        safe_url,
    )
    from zengine_jupyter.integrations.mcp._manager import (
        McpManager,
        McpManagerOptions,
    )
    from zengine_jupyter.integrations.mcp._naming import (
        MAX_NAME_LENGTH,
        PREFIX,
        qualified_name,
        qualify_tools,
        sanitize,
        server_prefix,
    )
    from zengine_jupyter.integrations.mcp._types import (
        McpCallResult,
        McpContent,
        McpPrompt,
        McpPromptArgument,
        McpPromptMessage,
        McpPromptResult,
        McpResource,
        McpResourceContent,
        McpTool,
    )

__all__ = [
    "MAX_NAME_LENGTH",
    "PREFIX",
    "McpCallResult",
    "McpContent",
    "McpManager",
    "McpManagerOptions",
    "McpPrompt",
    "McpPromptArgument",
    "McpPromptMessage",
    "McpPromptResult",
    "McpResource",
    "McpResourceContent",
    "McpServerEntry",
    "McpTool",
    "expand_env",
    "expand_values",
    "qualified_name",
    "qualify_tools",
    "safe_url",
    "sanitize",
    "server_prefix",
]

__getattr__, __dir__ = _lazy_exports(
    __name__,
    {
        "MAX_NAME_LENGTH": "_naming",
        "PREFIX": "_naming",
        "McpCallResult": "_types",
        "McpContent": "_types",
        "McpManager": "_manager",
        "McpManagerOptions": "_manager",
        "McpPrompt": "_types",
        "McpPromptArgument": "_types",
        "McpPromptMessage": "_types",
        "McpPromptResult": "_types",
        "McpResource": "_types",
        "McpResourceContent": "_types",
        "McpServerEntry": "_entry",
        "McpTool": "_types",
        "expand_env": "_entry",
        "expand_values": "_entry",
        "qualified_name": "_naming",
        "qualify_tools": "_naming",
        "safe_url": "_entry",
        "sanitize": "_naming",
        "server_prefix": "_naming",
    },
)
