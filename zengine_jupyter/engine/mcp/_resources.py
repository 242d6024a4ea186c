"""The ListMcpResources and ReadMcpResource tools (spec "MCP servers" item 4), over a hub."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zengine_jupyter.protocol import ToolDefinition

if TYPE_CHECKING:
    from collections.abc import Mapping

    from zengine_jupyter.engine.mcp._hub import McpHub

__all__ = [
    "LIST_MCP_RESOURCES",
    "READ_MCP_RESOURCE",
    "list_resources_definition",
    "list_resources_text",
    "read_resource_definition",
    "read_resource_text",
]

LIST_MCP_RESOURCES = "ListMcpResources"
READ_MCP_RESOURCE = "ReadMcpResource"


def list_resources_definition() -> ToolDefinition:
    return ToolDefinition(
        name=LIST_MCP_RESOURCES,
        description="List the resources (files, documents) MCP servers expose.",
        input_schema={
            "type": "object",
            "properties": {"server": {"type": "string", "description": "Only this server."}},
            "additionalProperties": False,
        },
    )


def read_resource_definition() -> ToolDefinition:
    return ToolDefinition(
        name=READ_MCP_RESOURCE,
        description="Read one resource of an MCP server by its URI.",
        input_schema={
            "type": "object",
            "properties": {"server": {"type": "string"}, "uri": {"type": "string"}},
            "required": ["server", "uri"],
            "additionalProperties": False,
        },
    )


async def list_resources_text(hub: McpHub, arguments: Mapping[str, Any]) -> str:
    """The ListMcpResources result: one line per resource, then any server that failed."""
    server = arguments.get("server") or None
    listing = await hub.list_resources(str(server) if server else None)
    lines = [
        f"{r.server}  {r.uri}  {r.name}"
        + (f" ({r.mime_type})" if r.mime_type else "")
        + (f": {r.description}" if r.description else "")
        for r in listing.resources
    ]
    lines += [f"{name}: could not list resources: {why}" for name, why in listing.errors.items()]
    return "\n".join(lines) or "No MCP resources."


async def read_resource_text(hub: McpHub, arguments: Mapping[str, Any]) -> str:
    """The ReadMcpResource result: the text parts; binary parts as a short placeholder."""
    contents = await hub.read_resource(str(arguments["server"]), str(arguments["uri"]))
    parts = [
        c.text if c.text is not None else f"[binary {c.mime_type or ''} {len(c.blob or '')} b64]"
        for c in contents
    ]
    return "\n".join(parts)
