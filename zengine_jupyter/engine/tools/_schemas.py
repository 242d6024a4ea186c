"""The JSON schema a tool shows the model for its arguments, made once per input model.

Making one builds the pydantic model and walks it: a few ms a tool, which every request paid
again. Each is now made once per process, and the shipped tools' schemas come ready-made from
``_schema_table.py`` (written by ``scripts/gen-tool-schemas``; a test checks it is current), so
a first request builds none of the input models: they are built when a call is parsed.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = ["fresh_input_schema", "input_schema_of"]

_made: dict[type[BaseModel], str] = {}


def fresh_input_schema(model: type[BaseModel]) -> dict[str, Any]:
    """``model``'s schema as the model sees it (no ``title``), made now."""
    schema = model.model_json_schema()
    schema.pop("title", None)
    return schema


def input_schema_of(model: type[BaseModel]) -> dict[str, Any]:
    """``model``'s schema: a new dict each call (a request may change its copy)."""
    text = _made.get(model)
    if text is None:
        from zengine_jupyter.engine.tools._schema_table import TABLE

        text = TABLE.get(f"{model.__module__}.{model.__qualname__}")
        if text is None:  # a tool of an extension or a test: made here, once
            text = json.dumps(fresh_input_schema(model))
        _made[model] = text
    loaded: dict[str, Any] = json.loads(text)
    return loaded
