"""What an :class:`McpManager` hands back: plain frozen data, no SDK types.

The engine turns these into its own tool results and commands; nothing here is persisted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "McpCallResult",
    "McpContent",
    "McpPrompt",
    "McpPromptArgument",
    "McpPromptMessage",
    "McpPromptResult",
    "McpResource",
    "McpResourceContent",
    "McpTool",
]


@dataclass(frozen=True)
class McpTool:
    """One tool as the agent sees it."""

    server: str
    name: str
    """The server's own name for it (what ``tools/call`` needs)."""
    qualified: str
    """``mcp__<server>__<tool>``: the agent's name for it, and what permission rules match."""
    description: str
    input_schema: dict[str, Any] = field(hash=False)
    read_only: bool = False
    """The server's ``readOnlyHint``; informative only: MCP tools still ask by default."""

    @property
    def summary(self) -> str:
        """The first line of the description, at most 120 characters (for the deferred list)."""
        line = next((ln.strip() for ln in self.description.splitlines() if ln.strip()), "")
        return line if len(line) <= 120 else line[:117] + "..."


@dataclass(frozen=True)
class McpContent:
    """One block of a tool result or a prompt message.

    ``text`` for text (and for an embedded text resource); ``image``/``audio`` carry base64
    ``data`` and ``mime_type``; ``resource`` is a link or an embedded binary (``uri``).
    """

    kind: Literal["text", "image", "audio", "resource"]
    text: str = ""
    data: str = ""
    mime_type: str | None = None
    uri: str | None = None


@dataclass(frozen=True)
class McpCallResult:
    """What ``tools/call`` returned. ``is_error``: the tool ran and reported a failure."""

    content: tuple[McpContent, ...]
    is_error: bool = False
    structured: dict[str, Any] | None = field(default=None, hash=False)

    def text(self) -> str:
        """Every text block joined; other blocks as short placeholders."""
        parts: list[str] = []
        for block in self.content:
            if block.kind == "text":
                parts.append(block.text)
            elif block.kind == "resource":
                parts.append(f"[resource {block.uri}]")
            else:
                parts.append(f"[{block.kind} {block.mime_type or ''}]".replace(" ]", "]"))
        return "\n".join(parts)


@dataclass(frozen=True)
class McpResource:
    """A resource a server lists."""

    server: str
    uri: str
    name: str
    description: str = ""
    mime_type: str | None = None


@dataclass(frozen=True)
class McpResourceContent:
    """One part of a read resource: ``text``, or base64 ``blob`` for binary content."""

    uri: str
    mime_type: str | None = None
    text: str | None = None
    blob: str | None = None


@dataclass(frozen=True)
class McpPromptArgument:
    name: str
    description: str = ""
    required: bool = False


@dataclass(frozen=True)
class McpPrompt:
    """A prompt a server offers; it becomes the slash command ``/mcp__<server>__<prompt>``."""

    server: str
    name: str
    command: str
    """``mcp__<server>__<prompt>``, sanitised like tool names."""
    description: str = ""
    arguments: tuple[McpPromptArgument, ...] = ()


@dataclass(frozen=True)
class McpPromptMessage:
    role: Literal["user", "assistant"]
    content: McpContent


@dataclass(frozen=True)
class McpPromptResult:
    """A prompt filled in with its arguments: the messages to send."""

    description: str
    messages: tuple[McpPromptMessage, ...]
