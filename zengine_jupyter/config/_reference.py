"""The settings reference (docs/settings.md) generated from the schema.

``render_reference()`` is the block between the page's ``BEGIN``/``END`` markers;
``sync_reference_page()`` rewrites that block; a test fails when the committed page is stale.
"""

from __future__ import annotations

import ast
import functools
import inspect
import itertools
import json
import textwrap
import types
import typing
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from zengine_jupyter.config._merge import BY_ID, COMBINED, CONCATENATED, ENTRY_MAPS
from zengine_jupyter.config._restrict import APPLIED, CAPPED, WITHHELD
from zengine_jupyter.config._schema import Settings

if typing.TYPE_CHECKING:
    from pathlib import Path

    from pydantic.fields import FieldInfo

__all__ = ["BEGIN", "END", "render_reference", "sync_reference_page"]

BEGIN = "<!-- BEGIN GENERATED REFERENCE (zengine settings --reference) -->"
END = "<!-- END GENERATED REFERENCE -->"

Path_ = tuple[str, ...]


def _type_name(annotation: Any) -> str:
    origin = get_origin(annotation)
    args = get_args(annotation)
    if origin is Literal:
        return " \\| ".join(json.dumps(arg) for arg in args)
    if origin in (typing.Union, types.UnionType):
        names = [_type_name(arg) for arg in args if arg is not type(None)]
        suffix = " (optional)" if type(None) in args else ""
        return " or ".join(names) + suffix
    if origin is list:
        return f"list of {_type_name(args[0])}"
    if origin is dict:
        return f"table of {_type_name(args[1])}"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "table"
    simple: dict[object, str] = {
        str: "string",
        bool: "boolean",
        int: "integer",
        float: "number",
        Any: "any",
    }
    return simple.get(annotation, str(annotation))


def _default(field: FieldInfo) -> str:
    if field.default_factory is not None:
        value = field.default_factory()  # type: ignore[call-arg]
    elif field.default is PydanticUndefined:
        return "required"
    else:
        value = field.default
    if value is None:
        return "unset"
    return f"`{json.dumps(value)}`"


def _merge_rule(path: Path_) -> str:
    if path in COMBINED:
        return "lists combine"
    if path in CONCATENATED:
        return "lists add up"
    if path in BY_ID:
        return "merged by id"
    if path[:-1] in ENTRY_MAPS or path in ENTRY_MAPS:
        return "entry replaces same name"
    return "highest layer wins"


def _trust_rule(path: Path_) -> str:
    for table, label in ((WITHHELD, "withheld"), (CAPPED, "may only lower"), (APPLIED, "applied")):
        if any(path[: len(prefix)] == prefix for prefix in table):
            return label
    return "?"


def _describe(field: FieldInfo, doc: str | None = None) -> str:
    return " ".join((field.description or doc or "").split()).replace("|", "\\|")


@functools.cache
def _class_docs(cls: type) -> dict[str, str]:
    """The docstrings under ``cls``'s own annotated attributes (``name: T`` then a string)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    except (OSError, TypeError):  # no source (a frozen build): the reference says less
        return {}
    body = next((n.body for n in tree.body if isinstance(n, ast.ClassDef)), [])
    docs: dict[str, str] = {}
    for node, after in itertools.pairwise(body):
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)):  # fmt: skip
            docs[node.target.id] = inspect.cleandoc(after.value.value)
    return docs


def _field_docs(model: type[BaseModel]) -> dict[str, str]:
    """The attribute docstrings of ``model``'s keys, a subclass's over its bases'."""
    docs: dict[str, str] = {}
    for cls in reversed(model.__mro__):
        if isinstance(cls, type) and issubclass(cls, BaseModel) and cls is not BaseModel:
            docs.update(_class_docs(cls))
    return docs


def _rows(model: type[BaseModel], path: Path_, shown: str, merge: str | None = None) -> list[str]:
    """Rows for every key of ``model``; ``merge`` overrides the merge rule (keys of an entry)."""
    rows: list[str] = []
    docs = _field_docs(model)
    for name, field in model.model_fields.items():
        here, key = (*path, name), f"{shown}.{name}" if shown else name
        annotation = field.annotation
        nested = _nested_model(annotation)
        if nested is not None and get_origin(annotation) is None:
            rows += _rows(nested, here, key, merge)
            continue
        rows.append(
            f"| `{key}` | {_type_name(annotation)} | {_default(field)} "
            f"| {merge or _merge_rule(here)} | {_trust_rule(here)} "
            f"| {_describe(field, docs.get(name))} |"
        )
        if nested is not None:
            inner = f"{key}[]" if get_origin(annotation) is list else f"{key}.NAME"
            rows += _rows(nested, here, inner, "part of its entry")
    return rows


def _nested_model(annotation: Any) -> type[BaseModel] | None:
    for candidate in (annotation, *get_args(annotation)):
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return candidate
    return None


def render_reference() -> str:
    """Markdown tables of every key, one per top-level table, with type, default and rules."""
    out: list[str] = [BEGIN, ""]
    docs = _field_docs(Settings)
    for name, field in Settings.model_fields.items():
        out += [
            f"### `{name}`",
            "",
            _describe(field, docs.get(name)),
            "",
            "| key | type | default | across layers | untrusted project | meaning |",
            "|---|---|---|---|---|---|",
        ]
        section = _nested_model(field.annotation)
        if section is None:  # pragma: no cover - every top-level key is a table
            raise TypeError(f"settings key {name} is not a table")
        if get_origin(field.annotation) is dict:  # [pricing."MODEL-ID"]: a table of entries
            out += _rows(section, (name,), f'{name}."MODEL-ID"', "entry replaces same name")
        else:
            out += _rows(section, (name,), name)
        out.append("")
    out.append(END)
    return "\n".join(out) + "\n"


def sync_reference_page(page: Path) -> bool:
    """Rewrite the generated block of ``page``; ``True`` if it changed."""
    text = page.read_text(encoding="utf-8")
    start, end = text.index(BEGIN), text.index(END) + len(END) + 1
    updated = text[:start] + render_reference() + text[end:]
    if updated == text:
        return False
    page.write_text(updated, encoding="utf-8")
    return True
