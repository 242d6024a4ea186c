"""Reading the catalog's files: a models.dev catalog, the user's ``models.json``, the snapshot
bundled with the package.

Nothing here raises for a bad file: each reader gives back what it could use and the problems,
sentences that name the file and what to do (the engine shows them as notices). Blocking: call
these in a thread.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "SNAPSHOT_DATE",
    "is_catalog",
    "read_catalog_file",
    "read_corrections",
    "read_snapshot",
]

SNAPSHOT_DATE = "2026-07-02"
"""When the bundled snapshot was taken (the models.dev commit it was generated from)."""
_SNAPSHOT = ("_data", "models-dev-snapshot.json")

_INT_LIMITS = ("context", "input", "output")
_PRICES = ("input", "output", "cache_read", "cache_write")


def is_catalog(data: object) -> bool:
    """Whether ``data`` has models.dev's shape: provider id -> {..., "models": {...}}."""
    return isinstance(data, dict) and any(
        isinstance(v, dict) and isinstance(v.get("models"), dict) for v in data.values()
    )


def _parse(path: Path) -> tuple[object, str | None]:
    """``(data, None)``, or ``(None, reason)`` for a file that exists but cannot be used;
    a missing file is ``(None, None)``."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"it cannot be read ({exc.strerror or type(exc).__name__})"
    try:
        return json.loads(raw.decode("utf-8")), None
    except UnicodeDecodeError:
        return None, "it is not UTF-8 text"
    except json.JSONDecodeError as exc:
        return None, f"it is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"


def read_catalog_file(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """The models.dev cache: ``(catalog, None)``, ``(None, None)`` when there is none, or
    ``(None, problem)`` when it is broken (the bundled snapshot then stands in)."""
    data, reason = _parse(path)
    if data is None and reason is None:
        return None, None
    if reason is None and not is_catalog(data):
        reason = "it is not a models.dev catalog (no provider with models)"
    if reason is not None:
        return None, (
            f"the models.dev cache {path} cannot be used: {reason}; the bundled snapshot "
            f"({SNAPSHOT_DATE}) stands in until the background refresh replaces the file"
        )
    assert isinstance(data, dict)
    return data, None


def read_snapshot() -> dict[str, Any]:
    """The snapshot shipped inside the package (always a valid catalog)."""
    folder, name = _SNAPSHOT
    text = resources.files("zengine_jupyter.llm").joinpath(folder, name).read_text(encoding="utf-8")
    data = json.loads(text)
    assert isinstance(data, dict)
    return data


def read_corrections(path: Path) -> tuple[dict[str, Any], list[str]]:
    """The user's ``models.json``: the corrections that fit, and a problem per part that does
    not (that part is skipped, the rest applies). A missing file is no corrections."""
    data, reason = _parse(path)
    if reason is None and data is not None and not isinstance(data, dict):
        reason = "it is not a JSON object (model id -> the fields to correct)"
    if reason is not None:
        return {}, [
            f"{path} is not used: {reason}; the catalog goes on without your corrections "
            "until you fix it"
        ]
    if not isinstance(data, dict):
        return {}, []
    kept: dict[str, Any] = {}
    problems: list[str] = []
    for model_id, entry in data.items():
        if not isinstance(entry, dict):
            problems.append(f"{path}: the entry {model_id!r} is not an object; it is skipped")
            continue
        kept[model_id] = _clean_entry(entry, f"{path}: {model_id!r}", problems)
    return kept, problems


def _clean_entry(entry: dict[str, Any], where: str, problems: list[str]) -> dict[str, Any]:
    """``entry`` without the known fields whose value has the wrong type (each reported)."""
    out = dict(entry)
    if "reasoning" in out and not isinstance(out["reasoning"], bool):
        problems.append(f"{where}: reasoning must be true or false; it is skipped")
        del out["reasoning"]
    for section, keys, ok, kind in (
        ("limit", _INT_LIMITS, _is_count, "a whole number of tokens"),
        ("cost", _PRICES, _is_price, "a number (USD per 1M tokens)"),
    ):
        if section not in out:
            continue
        value = out[section]
        if not isinstance(value, dict):
            problems.append(f"{where}: {section} must be an object; it is skipped")
            del out[section]
            continue
        fields = dict(value)
        for key in keys:
            if key in fields and not ok(fields[key]):
                problems.append(f"{where}: {section}.{key} must be {kind}; it is skipped")
                del fields[key]
        out[section] = fields
    return out


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _is_price(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value >= 0
