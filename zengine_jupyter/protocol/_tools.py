"""Tool definitions: what the model is told it may call.

Kept minimal on purpose: the same three fields (and the same name rule) as the provider
adapters' ``ToolSpec`` in the llm part, so the engine can pass one for the other.
"""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field

from zengine_jupyter.protocol._data_model import DataModel

__all__ = ["TOOL_NAME_PATTERN", "ToolDefinition"]

TOOL_NAME_PATTERN = r"^[a-zA-Z0-9_-]{1,64}$"
"""What every provider accepts as a tool name (Anthropic and OpenAI-compatible alike)."""


class ToolDefinition(DataModel):
    """One tool the model may call; ``input_schema`` is a JSON Schema object."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=TOOL_NAME_PATTERN)
    description: str = ""
    input_schema: dict[str, Any]
