"""Merging settings layers, with the layer each value came from (provenance).

Layers are merged as the raw tables their files set (only the keys a file names), lowest first:

* a single value: the highest layer that sets it wins;
* rule lists (``COMBINED``): every layer's items, in layer order, without duplicates;
* hook lists (``hooks.EVENT``): every layer's hooks add up, duplicates included;
* ``verification.checks``: merged by ``id``; a higher layer's check replaces one with that id;
* servers and prices (``ENTRY_MAPS``): a higher layer's entry replaces the one of the same name.

Provenance keys are dotted paths; list items get ``[i]`` and map entries their (quoted) name:
``permissions.allow[1]``, ``mcp.servers.github``, ``pricing."gpt-4.1"`` (dots force quotes).
"""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from zengine_jupyter.protocol import HOOK_EVENTS

if TYPE_CHECKING:
    from zengine_jupyter.protocol import LayerName

__all__ = [
    "BY_ID",
    "COMBINED",
    "CONCATENATED",
    "ENTRY_MAPS",
    "dotted",
    "flatten",
    "merge_tables",
]

Path_ = tuple[str, ...]

COMBINED: frozenset[Path_] = frozenset(
    {
        ("permissions", "allow"),
        ("permissions", "ask"),
        ("permissions", "deny"),
        ("permissions", "additional_directories"),
        ("shell", "sandbox", "extra_writable"),
    }
)
"""Lists that combine across layers (duplicates dropped)."""
CONCATENATED: frozenset[Path_] = frozenset(("hooks", event) for event in HOOK_EVENTS)
"""Lists that add up across layers (duplicates kept: a hook listed twice runs twice)."""
BY_ID: frozenset[Path_] = frozenset({("verification", "checks")})
"""Lists of tables merged by their ``id``."""
ENTRY_MAPS: frozenset[Path_] = frozenset({("mcp", "servers"), ("lsp", "servers"), ("pricing",)})
"""Tables whose entries replace, never merge with, an entry of the same name."""

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


@functools.lru_cache(maxsize=1024)
def dotted(path: Path_) -> str:
    """``("pricing", "gpt-4.1")`` -> ``pricing."gpt-4.1"`` (TOML key syntax)."""
    return ".".join(part if _BARE.match(part) else f'"{part}"' for part in path)


def merge_tables(
    layers: list[tuple[LayerName, Mapping[str, Any]]],
) -> tuple[dict[str, Any], dict[str, LayerName]]:
    """Merge ``(layer name, raw table)`` pairs, lowest first: ``(merged, provenance)``."""
    merged: dict[str, Any] = {}
    provenance: dict[str, LayerName] = {}
    for name, table in layers:
        _merge_into(merged, table, (), name, provenance)
    return merged, provenance


def _merge_into(
    base: dict[str, Any],
    top: Mapping[str, Any],
    path: Path_,
    layer: LayerName,
    prov: dict[str, LayerName],
) -> None:
    for key, value in top.items():
        here = (*path, key)
        where = dotted(here)
        if here in ENTRY_MAPS:
            entries = base.setdefault(key, {})
            for entry, body in value.items():
                entries[entry] = copy.deepcopy(body)
                prov[dotted((*here, entry))] = layer
        elif here in COMBINED:
            items = base.setdefault(key, [])
            for item in value:
                if item not in items:
                    items.append(item)
                    prov[f"{where}[{len(items) - 1}]"] = layer
        elif here in CONCATENATED:
            items = base.setdefault(key, [])
            for item in value:
                items.append(copy.deepcopy(item))
                prov[f"{where}[{len(items) - 1}]"] = layer
        elif here in BY_ID:
            items = base.setdefault(key, [])
            for item in value:
                index = next((i for i, old in enumerate(items) if old["id"] == item["id"]), None)
                if index is None:
                    items.append(copy.deepcopy(item))
                    index = len(items) - 1
                else:
                    items[index] = copy.deepcopy(item)
                prov[f"{where}[{index}]"] = layer
        elif isinstance(value, Mapping):
            _merge_into(base.setdefault(key, {}), value, here, layer, prov)
        else:
            base[key] = copy.deepcopy(value)
            prov[where] = layer


def flatten(data: Mapping[str, Any], path: Path_ = ()) -> dict[str, Any]:
    """Leaves of a full settings dump, keyed like provenance (empty lists/maps stay one leaf)."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        here = (*path, key)
        where = dotted(here)
        if here in ENTRY_MAPS:
            if not value:
                out[where] = {}
            for entry, body in value.items():
                out[dotted((*here, entry))] = body
        elif here in COMBINED or here in CONCATENATED or here in BY_ID:
            if not value:
                out[where] = []
            for index, item in enumerate(value):
                out[f"{where}[{index}]"] = item
        elif isinstance(value, Mapping):
            out.update(flatten(value, here))
        else:
            out[where] = value
    return out
