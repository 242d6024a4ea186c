"""Tools' argument schemas: made once per input model, the shipped ones ahead of time
(``engine/tools/_schema_table.py``), so a first request builds none of the input models."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from pydantic import Field

from zengine_jupyter.engine.tools import Tool, ToolContext, ToolInput, ToolOutput, builtin_tools
from zengine_jupyter.engine.tools._schemas import fresh_input_schema, input_schema_of

REPO = Path(__file__).resolve().parents[2]


def test_the_table_is_current() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "gen-tool-schemas"), "--check"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_each_built_in_tool_shows_its_model_s_schema() -> None:
    for tool in builtin_tools():
        assert tool.input_schema() == fresh_input_schema(tool.Input), tool.name
        assert "title" not in tool.input_schema()


def test_each_call_gets_its_own_copy() -> None:
    tool = builtin_tools()[0]
    first = tool.input_schema()
    first["properties"].clear()
    assert tool.input_schema()["properties"], "a request's change leaked into the next one"


class _Extra(ToolInput):
    depth: int = Field(2, ge=0, description="How deep.")


class _ExtraTool(Tool[_Extra]):
    name = "Extra"
    kind = "read"
    description = "An extension's tool, not in the table."
    Input = _Extra

    async def run(self, args: _Extra, ctx: ToolContext) -> ToolOutput:
        return ToolOutput(str(args.depth))


def test_a_tool_outside_the_table_has_its_schema_made_once(monkeypatch: Any) -> None:
    made: list[type] = []
    real = _Extra.model_json_schema

    def counted(*args: Any, **kwargs: Any) -> dict[str, Any]:
        made.append(_Extra)
        return real(*args, **kwargs)

    monkeypatch.setattr(_Extra, "model_json_schema", counted)
    tool = _ExtraTool()
    assert tool.input_schema()["properties"]["depth"]["minimum"] == 0
    assert tool.input_schema() == input_schema_of(_Extra)
    assert len(made) == 1


def test_listing_the_tools_builds_none_of_their_models() -> None:
    """In a fresh interpreter: the schemas of every built-in tool, and no input model built."""
    code = (
        "from pydantic._internal._mock_val_ser import MockValSer\n"
        "from zengine_jupyter.engine.tools import builtin_tools\n"
        "tools = builtin_tools()\n"
        "schemas = [t.input_schema() for t in tools]\n"
        "print(len(schemas), sum(type(t.Input.__pydantic_validator__) is MockValSer"
        " for t in tools))\n"
        "tools[0].parse({'path': 'a.py'})\n"  # a call builds its model then
        "print(type(tools[0].Input.__pydantic_validator__) is MockValSer)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    count = str(len(builtin_tools()))
    assert out == [count, count, "False"]
