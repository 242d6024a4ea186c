"""What an ACP client sends, in the engine's terms: a prompt's content blocks as the turn's
text, and the client's MCP servers as ``[mcp.servers]`` entries."""

from __future__ import annotations

from typing import Any

from acp.schema import (
    BlobResourceContents,
    EmbeddedResourceContentBlock,
    HttpMcpServer,
    ImageContentBlock,
    McpServerStdio,
    ResourceContentBlock,
    TextContentBlock,
)

from zengine_jupyter.config import McpServerSettings

__all__ = ["client_mcp_servers", "prompt_text"]


def prompt_text(blocks: list[Any]) -> str:
    """Text blocks as they are; embedded context (a file the user attached) after them in a
    ``<context>`` element naming its URI; a resource link as the URI; anything else named."""
    parts: list[str] = []
    context: list[str] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            parts.append(block.text)
        elif isinstance(block, ResourceContentBlock):
            parts.append(block.uri)
        elif isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            if isinstance(resource, BlobResourceContents):
                context.append(f'<context uri="{resource.uri}">(binary, not included)</context>')
            else:
                context.append(f'<context uri="{resource.uri}">\n{resource.text}\n</context>')
        elif isinstance(block, ImageContentBlock):
            parts.append("[an image was attached; this agent does not read images in prompts]")
        else:
            parts.append(f"[a {getattr(block, 'type', 'content')} block was left out]")
    text = " ".join(p for p in parts if p)
    return "\n\n".join([text, *context]) if context else text


def client_mcp_servers(servers: list[Any]) -> tuple[dict[str, McpServerSettings], list[str]]:
    """The client's ``mcpServers`` (HTTP and stdio) as settings entries, and what was skipped."""
    out: dict[str, McpServerSettings] = {}
    problems: list[str] = []
    for server in servers:
        if isinstance(server, HttpMcpServer):
            out[server.name] = McpServerSettings(
                url=server.url, headers={h.name: h.value for h in server.headers}
            )
        elif isinstance(server, McpServerStdio):
            out[server.name] = McpServerSettings(
                command=server.command,
                args=list(server.args),
                env={e.name: e.value for e in server.env},
            )
        else:
            kind = getattr(server, "type", "unknown")
            name = getattr(server, "name", "?")
            problems.append(
                f"MCP server {name!r} from the client uses {kind}, which zengine does not "
                "speak (HTTP and stdio only)"
            )
    return out, problems
