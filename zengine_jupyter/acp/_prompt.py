"""What an ACP client sends, in the engine's terms: a prompt's content blocks as the turn's
text and images, and the client's MCP servers as ``[mcp.servers]`` entries."""

from __future__ import annotations

import base64
import binascii
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
from zengine_jupyter.protocol import ImagePart

__all__ = ["IMAGE_MAX_BYTES", "client_mcp_servers", "prompt_parts"]

IMAGE_MAX_BYTES = 5 * 1024 * 1024
"""The largest image a prompt may attach (the providers' own per-image limit)."""
_IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


def prompt_parts(blocks: list[Any]) -> tuple[str, list[ImagePart]]:
    """The turn's text and its images. Text blocks as they are; embedded context (a file the
    user attached) after them in a ``<context>`` element naming its URI; a resource link as
    the URI; an image (png, jpeg, gif or webp, at most ``IMAGE_MAX_BYTES``) as an image part,
    one it cannot take named in the text with why; anything else named."""
    parts: list[str] = []
    context: list[str] = []
    pictures: list[ImagePart] = []
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
            image, why = _image(block)
            if image is None:
                parts.append(f"[an attached image was left out: {why}]")
            else:
                pictures.append(image)
        else:
            parts.append(f"[a {getattr(block, 'type', 'content')} block was left out]")
    text = " ".join(p for p in parts if p)
    return ("\n\n".join([text, *context]) if context else text), pictures


def _image(block: ImageContentBlock) -> tuple[ImagePart | None, str]:
    """The image as a request part, or why it cannot be one."""
    if block.mime_type not in _IMAGE_TYPES:
        return None, f"{block.mime_type} is not one of {', '.join(_IMAGE_TYPES)}"
    try:
        size = len(base64.b64decode(block.data, validate=True))
    except (binascii.Error, ValueError):
        return None, "its data is not valid base64"
    if size > IMAGE_MAX_BYTES:
        return None, f"{size:,} bytes is over the {IMAGE_MAX_BYTES:,}-byte limit"
    return ImagePart(media_type=block.mime_type, data=block.data), ""  # type: ignore[arg-type]


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
