"""Which MCP tool definitions a model request carries (spec "MCP servers" item 5).

Up to :data:`DEFER_ABOVE` MCP tools in total, every definition goes into each request. Above
it, a request carries only the definitions the model has loaded, plus the ``LoadMcpTools``
definition, and a reminder lists every MCP tool by name with a one-line summary. A tool loaded
during one response is in the next request's definitions, so the model can call it from its
next response on. Pure functions over plain data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from zengine_jupyter.protocol import ToolDefinition

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence, Set

    from zengine_jupyter.integrations.mcp import McpTool

__all__ = [
    "DEFER_ABOVE",
    "LOAD_MCP_TOOLS",
    "McpCatalogView",
    "build_catalog",
    "load_tool_definition",
    "render_reminder",
    "tool_definition",
]

DEFER_ABOVE = 40
"""Above this many MCP tools in total, definitions are deferred."""

LOAD_MCP_TOOLS = "LoadMcpTools"


def load_tool_definition() -> ToolDefinition:
    """The ``LoadMcpTools`` tool: the model names the deferred tools it wants."""
    return ToolDefinition(
        name=LOAD_MCP_TOOLS,
        description=(
            "Load the full definitions of MCP tools listed in the reminder, by name, so you can "
            "call them. Loaded tools can be called from your next response on."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "names": {
                    "type": "array",
                    "items": {"type": "string"},
                    "minItems": 1,
                    "description": "Tool names exactly as listed (mcp__<server>__<tool>).",
                }
            },
            "required": ["names"],
            "additionalProperties": False,
        },
    )


def tool_definition(tool: McpTool) -> ToolDefinition:
    """The definition the model gets for one MCP tool (its qualified name)."""
    schema = dict(tool.input_schema) or {"type": "object", "properties": {}}
    schema.setdefault("type", "object")
    return ToolDefinition(name=tool.qualified, description=tool.description, input_schema=schema)


@dataclass(frozen=True)
class McpCatalogView:
    """What one model request carries for MCP tools."""

    definitions: tuple[ToolDefinition, ...]
    """MCP tool definitions (loaded ones when deferring) and ``LoadMcpTools`` when deferring."""
    reminder: str | None
    """The names-and-summaries list, when deferring; ``None`` otherwise."""
    deferred: bool
    callable: frozenset[str]
    """Qualified names the model may call in the response to this request."""
    listed: frozenset[str] = frozenset()
    """Every MCP tool's qualified name (loaded or not)."""

    def check_call(self, name: str) -> str | None:
        """``None`` if ``name`` may be called now, else the message to answer the call with.

        Names outside ``mcp__`` are not this catalog's business (``None``).
        """
        if name in self.callable or not name.startswith("mcp__"):
            return None
        if name in self.listed:
            return (
                f"{name} is not loaded yet: call {LOAD_MCP_TOOLS} with its name first; "
                "you can call it from your next response on."
            )
        return f"there is no MCP tool named {name}"


def build_catalog(
    tools: Sequence[McpTool], loaded: Set[str] = frozenset(), *, defer_above: int = DEFER_ABOVE
) -> McpCatalogView:
    """The MCP part of the next request, given every MCP tool and those already loaded."""
    names = frozenset(t.qualified for t in tools)
    if len(tools) <= defer_above:
        return McpCatalogView(
            definitions=tuple(tool_definition(t) for t in tools),
            reminder=None,
            deferred=False,
            callable=names,
            listed=names,
        )
    chosen = [t for t in tools if t.qualified in loaded]
    return McpCatalogView(
        definitions=(*(tool_definition(t) for t in chosen), load_tool_definition()),
        reminder=render_reminder(tools, loaded),
        deferred=True,
        callable=frozenset(t.qualified for t in chosen),
        listed=names,
    )


def render_reminder(tools: Iterable[McpTool], loaded: Set[str] = frozenset()) -> str:
    """``- name: summary`` for every MCP tool; loaded ones are marked."""
    lines = [
        "MCP tools available (definitions deferred). Call LoadMcpTools with the names you need; "
        "you can call them from your next response on.",
    ]
    for t in tools:
        mark = " (loaded)" if t.qualified in loaded else ""
        lines.append(f"- {t.qualified}: {t.summary}{mark}")
    return "\n".join(lines)
