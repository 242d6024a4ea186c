"""Engine-side MCP: the hub of a chat's servers, the deferred tool catalog, the MCP tools,
and :class:`McpExtension`, which wires them into every chat. Importing this package does not
import the ``mcp`` SDK.
"""

from zengine_jupyter.engine.mcp._catalog import (
    DEFER_ABOVE,
    LOAD_MCP_TOOLS,
    McpCatalogView,
    build_catalog,
    load_tool_definition,
    render_reminder,
    tool_definition,
)
from zengine_jupyter.engine.mcp._deferred import DeferredTools, LoadOutcome
from zengine_jupyter.engine.mcp._extension import McpExtension
from zengine_jupyter.engine.mcp._hub import (
    McpHub,
    McpOrigin,
    McpReconcileReport,
    McpResourceListing,
)
from zengine_jupyter.engine.mcp._prompts import prompt_arguments, prompt_text, run_prompt_command
from zengine_jupyter.engine.mcp._resources import (
    LIST_MCP_RESOURCES,
    READ_MCP_RESOURCE,
    list_resources_definition,
    list_resources_text,
    read_resource_definition,
    read_resource_text,
)
from zengine_jupyter.engine.mcp._servers import loaded_in_log, servers_from_settings
from zengine_jupyter.engine.mcp._status import render_notice, render_table
from zengine_jupyter.engine.mcp._tools import (
    ListMcpResourcesTool,
    LoadMcpToolsTool,
    McpArguments,
    McpServerTool,
    ReadMcpResourceTool,
    mcp_tool,
)

__all__ = [
    "DEFER_ABOVE",
    "LIST_MCP_RESOURCES",
    "LOAD_MCP_TOOLS",
    "READ_MCP_RESOURCE",
    "DeferredTools",
    "ListMcpResourcesTool",
    "LoadMcpToolsTool",
    "LoadOutcome",
    "McpArguments",
    "McpCatalogView",
    "McpExtension",
    "McpHub",
    "McpOrigin",
    "McpReconcileReport",
    "McpResourceListing",
    "McpServerTool",
    "ReadMcpResourceTool",
    "build_catalog",
    "list_resources_definition",
    "list_resources_text",
    "load_tool_definition",
    "loaded_in_log",
    "mcp_tool",
    "prompt_arguments",
    "prompt_text",
    "read_resource_definition",
    "read_resource_text",
    "render_notice",
    "render_reminder",
    "render_table",
    "run_prompt_command",
    "servers_from_settings",
    "tool_definition",
]
