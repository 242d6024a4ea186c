"""Reading one settings layer: a TOML file (or its v1 predecessor) or the environment.

A layer that does not parse or validate is skipped whole and reported with its file, the line
or key, and the reason; the caller goes on with the other layers.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pydantic import ValidationError

from zengine_jupyter.config._paths import user_config_dir
from zengine_jupyter.config._schema import Settings
from zengine_jupyter.config._v1 import V1_FILE_NAME, V1Error, convert_v1
from zengine_jupyter.protocol._settings import LayerName, SettingsIssue

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path

__all__ = [
    "ENV_OVERRIDES",
    "FileLayerName",
    "Layer",
    "env_layer",
    "layer_path",
    "read_layer",
    "read_toml",
]

FileLayerName = Literal["user", "project", "local"]

ENV_OVERRIDES: dict[str, tuple[str, str]] = {
    "ZENGINE_MODEL": ("model", "main"),
    "ZENGINE_PROVIDER": ("provider", "kind"),
    "ZENGINE_BASE_URL": ("provider", "base_url"),
    "ZENGINE_CASSETTE": ("provider", "cassette"),
    "ZENGINE_RECORD": ("provider", "record"),
    "ZENGINE_SHELL": ("shell", "program"),
}
"""Environment variables that beat every file layer, and the key each sets."""

_FILES: dict[FileLayerName, str] = {
    "user": "settings.toml",
    "project": "settings.toml",
    "local": "settings.local.toml",
}


@dataclass(frozen=True)
class Layer:
    """One layer that loaded: the keys it sets (raw, validated) and where it came from."""

    name: LayerName
    data: Mapping[str, Any] = field(default_factory=dict)
    path: Path | None = None
    from_v1: bool = False
    """``path`` is a v1 ``config.toml`` imported because the v2 file is missing."""


def layer_path(
    name: FileLayerName, project: Path | None, environ: Mapping[str, str] | None = None
) -> Path:
    """The v2 file of a layer: the user's ``settings.toml`` or the project's ``.z-engine/`` ones."""
    if name == "user":
        return user_config_dir(dict(os.environ if environ is None else environ)) / _FILES[name]
    if project is None:
        raise ValueError(f"the {name} layer needs a project folder")
    return project / ".z-engine" / _FILES[name]


def _v1_path(name: FileLayerName, path: Path) -> Path | None:
    """The v1 ``config.toml`` beside a v2 file; the local layer had no v1 counterpart."""
    return None if name == "local" else path.with_name(V1_FILE_NAME)


def read_toml(path: Path) -> tuple[str, dict[str, Any]]:
    """Text and table of a TOML file; raises ``OSError`` or ``tomllib.TOMLDecodeError``."""
    text = path.read_text(encoding="utf-8")
    return text, tomllib.loads(text)


def read_layer(name: FileLayerName, path: Path) -> tuple[Layer | None, list[SettingsIssue]]:
    """Load the layer at ``path`` (or its v1 file when ``path`` is missing).

    Returns ``(None, [])`` when neither file exists and ``(None, issues)`` when the layer is
    skipped.
    """
    source, from_v1 = path, False
    v1 = _v1_path(name, path)
    if not path.exists() and v1 is not None and v1.exists():
        source, from_v1 = v1, True
    if not source.exists():
        return None, []

    def issue(reason: str, *, key: str | None = None, line: int | None = None) -> SettingsIssue:
        return SettingsIssue(layer=name, file=str(source), line=line, key=key, reason=reason)

    try:
        text, data = read_toml(source)
    except OSError as exc:
        return None, [issue(f"cannot be read: {exc.strerror or exc}")]
    except UnicodeDecodeError:
        return None, [issue("is not UTF-8 text")]
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"\(at line (\d+), column \d+\)", str(exc))
        reason = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        return None, [issue(f"not valid TOML: {reason}", line=int(found[1]) if found else None)]
    if from_v1:
        try:
            data = convert_v1(data)
        except V1Error as exc:
            return None, [issue(exc.reason, key=exc.key, line=line_of(text, (exc.key,)))]
    try:
        Settings.model_validate(data)
    except ValidationError as exc:
        return None, [_validation_issue(issue, err, text, from_v1) for err in exc.errors()]
    return Layer(name=name, data=data, path=source, from_v1=from_v1), []


def _validation_issue(
    make: Callable[..., SettingsIssue], err: Mapping[str, Any], text: str, from_v1: bool
) -> SettingsIssue:
    keys = tuple(str(part) for part in err["loc"] if isinstance(part, str))
    key = ".".join(keys) or None
    reason = "unknown key" if err["type"] == "extra_forbidden" else str(err["msg"])
    if err["type"].endswith("_type") or err["type"] == "literal_error":
        reason += f" (got {type(err['input']).__name__})"
    return make(reason, key=key, line=None if from_v1 else line_of(text, keys))


def line_of(text: str, keys: tuple[str, ...]) -> int | None:
    """Best-effort line of a dotted key in TOML text (the deepest header or key on its path)."""
    table: tuple[str, ...] = ()
    best, best_len = None, 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        header = re.match(r"^\[\[?\s*([^\]]+?)\s*\]\]?", line)
        assigned = re.match(r"^([A-Za-z0-9_.\"' -]+?)\s*=", line)
        if header:
            table = _split_key(header[1])
            candidate = table
        elif assigned:
            candidate = (*table, *_split_key(assigned[1]))
        else:
            continue
        if candidate == keys:
            return number
        if candidate == keys[: len(candidate)] and len(candidate) > best_len:
            best, best_len = number, len(candidate)
    return best


def _split_key(raw: str) -> tuple[str, ...]:
    parts = re.findall(r'"[^"]*"|\'[^\']*\'|[^.\s]+', raw)
    return tuple(part.strip("\"'") for part in parts)


def env_layer(environ: Mapping[str, str]) -> tuple[Layer | None, list[SettingsIssue]]:
    """The ``ZENGINE_*`` overrides; a bad value is reported and only that variable ignored."""
    data: dict[str, dict[str, Any]] = {}
    issues: list[SettingsIssue] = []
    for var, (section, key) in ENV_OVERRIDES.items():
        value = environ.get(var, "").strip()
        if not value:
            continue
        try:
            Settings.model_validate({section: {key: value}})
        except ValidationError as exc:
            reason = f"{section}.{key}: {exc.errors()[0]['msg']}"
            issues.append(SettingsIssue(layer="env", key=var, reason=reason))
            continue
        data.setdefault(section, {})[key] = value
    return (Layer(name="env", data=data) if data else None), issues
