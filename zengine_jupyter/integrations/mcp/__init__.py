"""MCP client side: server entries, tool naming, and McpManager over the ``mcp`` SDK.

Importing this package does not import the SDK (it costs ~0.6 s): only a manager's first
start does (``_connection.py`` is the one module that imports ``mcp``).
"""

from zengine_jupyter.integrations.mcp._entry import (
    McpServerEntry,
    expand_env,
    expand_values,
    safe_url,
)
from zengine_jupyter.integrations.mcp._manager import McpManager, McpManagerOptions
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
