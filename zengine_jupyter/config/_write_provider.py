"""Writing the setup view's choice (``[provider] kind, base_url`` and ``[model] main``) into a
settings file, keeping its style (tomlkit: comments, order and quoting survive; the file is
replaced atomically and never rewritten when it does not parse or validate)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import tomlkit

from zengine_jupyter.config._trust import atomic_write_text
from zengine_jupyter.config._write import _load_document, _validate
from zengine_jupyter.protocol import SettingsFileError

if TYPE_CHECKING:
    from pathlib import Path

    from tomlkit.items import Table

__all__ = ["write_provider_choice"]

_ROLE_KEYS = ("fast", "review", "fallbacks")
"""Model settings that name models of one provider: dropped when the provider changes."""


def _table(doc: tomlkit.TOMLDocument, name: str, path: Path) -> Table:
    table = doc.get(name)
    if table is None:
        table = tomlkit.table()
        doc.append(name, table)
    if not isinstance(table, dict):
        raise SettingsFileError(f"{path}: {name} is not a table", hint=f"make it [{name}]")
    return table  # type: ignore[return-value]


def write_provider_choice(
    path: Path, *, kind: Literal["anthropic", "openai"], base_url: str | None, model: str
) -> list[str]:
    """Set ``provider.kind``, ``provider.base_url`` (removed when None) and ``model.main`` in
    ``path`` (created when missing). When the provider changes, ``model.fast``, ``review`` and
    ``fallbacks`` (models of the old one) are removed; returns the keys removed."""
    doc = _load_document(path)
    provider = _table(doc, "provider", path)
    before = (provider.get("kind"), provider.get("base_url"))
    provider["kind"] = kind
    if base_url is None:
        provider.pop("base_url", None)
    else:
        provider["base_url"] = base_url
    models = _table(doc, "model", path)
    models["main"] = model
    removed: list[str] = []
    if before != (kind, base_url):
        for key in _ROLE_KEYS:
            if models.pop(key, None) is not None:
                removed.append(f"model.{key}")
    rendered = tomlkit.dumps(doc)
    _validate(path, rendered)
    atomic_write_text(path, rendered)
    return removed
