"""MCP as engine tools: each server tool, LoadMcpTools, ListMcpResources, ReadMcpResource.

An MCP tool keeps its qualified name (``mcp__<server>__<tool>``), so the permission gate sees
it as MCP (asks by default; ``mcp__<server>`` and ``mcp__<server>__<tool>`` rules allow). Its
arguments go to the server as given: the server validates them against its own schema.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pydantic import ConfigDict, Field

from zengine_jupyter.config import private_dir, write_private
from zengine_jupyter.engine.mcp._catalog import LOAD_MCP_TOOLS, tool_definition
from zengine_jupyter.engine.mcp._resources import (
    LIST_MCP_RESOURCES,
    READ_MCP_RESOURCE,
    list_resources_text,
    read_resource_text,
)
from zengine_jupyter.engine.tools import (
    INLINE_LIMIT,
    Tool,
    ToolContext,
    ToolInput,
    ToolOutput,
    in_thread,
)
from zengine_jupyter.protocol import ToolError

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from zengine_jupyter.engine.mcp._deferred import DeferredTools
    from zengine_jupyter.engine.mcp._hub import McpHub
    from zengine_jupyter.integrations.mcp import McpCallResult, McpTool

__all__ = [
    "ListMcpResourcesTool",
    "LoadMcpToolsTool",
    "McpArguments",
    "McpServerTool",
    "ReadMcpResourceTool",
    "mcp_tool",
]


class McpArguments(ToolInput):
    """Whatever the model sent: the server checks it against its own schema."""

    model_config = ConfigDict(extra="allow", frozen=True)


class McpServerTool(Tool[McpArguments]):
    """One tool of an MCP server (built per tool by :func:`mcp_tool`)."""

    kind = "other"  # the gate treats every ``mcp__`` name as MCP whatever the kind
    Input = McpArguments
    description = ""
    definition: McpTool

    def __init__(self, hub: McpHub, check: Callable[[str], str | None]) -> None:
        self.hub = hub
        self._check = check

    def input_schema(self) -> dict[str, Any]:
        return tool_definition(self.definition).input_schema

    def parse(self, arguments: dict[str, Any]) -> McpArguments:
        # Before the gate: a deferred tool the model has not loaded is refused without asking.
        refusal = self._check(self.name)
        if refusal is not None:
            raise ToolError(refusal)
        # Nothing to check here (the server checks its own schema): every key is an extra,
        # kept as sent (validating is cheaper than ``model_construct``: ~5 us vs ~8 us).
        return McpArguments.model_validate(arguments)

    async def run(self, args: McpArguments, ctx: ToolContext) -> ToolOutput:
        result = await self.hub.call_tool(self.name, args.__pydantic_extra__ or {})
        return await _output(self.name, result, ctx)


def mcp_tool(tool: McpTool, hub: McpHub, check: Callable[[str], str | None]) -> McpServerTool:
    """The engine tool for ``tool`` (a subclass per tool: names and texts are class data)."""
    cls = type(
        f"McpServerTool[{tool.qualified}]",
        (McpServerTool,),
        {"name": tool.qualified, "description": tool.description, "definition": tool},
    )
    made: McpServerTool = cls(hub, check)
    return made


async def _output(name: str, result: McpCallResult, ctx: ToolContext) -> ToolOutput:
    text = result.text()
    if not text.strip() and result.structured is not None:
        text = json.dumps(result.structured, ensure_ascii=False)
    text = text or "(no output)"
    if len(text) <= INLINE_LIMIT:
        return ToolOutput(text, is_error=result.is_error)
    path: Path = await in_thread(_save, ctx.artifacts, name, text)
    head = f"[output was {len(text):,} characters; showing the start; all of it is in {path}]\n"
    return ToolOutput(head + text[:INLINE_LIMIT], is_error=result.is_error, artifact=path)


def _save(folder: Path, name: str, text: str) -> Path:
    import uuid

    private_dir(folder)
    path = folder / f"{name}-{uuid.uuid4().hex[:12]}.txt"
    tmp = path.with_suffix(".tmp")
    write_private(tmp, text)
    tmp.replace(path)
    return path


class LoadInput(ToolInput):
    names: list[str] = Field(
        min_length=1, description="Tool names exactly as listed (mcp__<server>__<tool>)."
    )


class LoadMcpToolsTool(Tool[LoadInput]):
    name = LOAD_MCP_TOOLS
    kind = "read"
    description = (
        "Load the full definitions of MCP tools listed in the reminder, by name, so you can "
        "call them. Loaded tools can be called from your next response on."
    )
    Input = LoadInput

    def __init__(self, hub: McpHub, deferred: DeferredTools) -> None:
        self.hub = hub
        self.deferred = deferred

    async def run(self, args: LoadInput, ctx: ToolContext) -> ToolOutput:
        outcome = self.deferred.load({"names": args.names}, self.hub.tools())
        return ToolOutput(outcome.text(), is_error=outcome.is_error)


class ListInput(ToolInput):
    server: str | None = Field(None, description="Only this server.")


class ListMcpResourcesTool(Tool[ListInput]):
    name = LIST_MCP_RESOURCES
    kind = "read"
    description = "List the resources (files, documents) MCP servers expose."
    Input = ListInput

    def __init__(self, hub: McpHub) -> None:
        self.hub = hub

    async def run(self, args: ListInput, ctx: ToolContext) -> ToolOutput:
        return ToolOutput(await list_resources_text(self.hub, {"server": args.server}))


class ReadInput(ToolInput):
    server: str = Field(description="The server, as ListMcpResources names it.")
    uri: str = Field(description="The resource's URI.")


class ReadMcpResourceTool(Tool[ReadInput]):
    name = READ_MCP_RESOURCE
    kind = "read"
    description = "Read one resource of an MCP server by its URI."
    Input = ReadInput

    def __init__(self, hub: McpHub) -> None:
        self.hub = hub

    async def run(self, args: ReadInput, ctx: ToolContext) -> ToolOutput:
        text = await read_resource_text(self.hub, {"server": args.server, "uri": args.uri})
        return await _output(READ_MCP_RESOURCE, _as_result(text), ctx)


def _as_result(text: str) -> McpCallResult:
    from zengine_jupyter.integrations.mcp import McpCallResult, McpContent

    return McpCallResult((McpContent("text", text),))
