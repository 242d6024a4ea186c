"""Reading one settings layer: a TOML file (or its v1 predecessor) or the environment.

A layer that does not parse or validate is skipped whole and reported with its file, the line
or key, and the reason; the caller goes on with the other layers. A skipped layer that would
have said where requests go (a ``[provider]`` key) is also reported under that key: the chat
then refuses to call any provider rather than fall back to a default endpoint with the user's
key (see ``EffectiveSettings.provider_issues``).
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import ValidationError

from zengine_jupyter.config._paths import user_config_dir
from zengine_jupyter.config._schema import Settings
from zengine_jupyter.config._v1 import V1_FILE_NAME, V1Error, convert_v1
from zengine_jupyter.protocol import LayerName, SettingsIssue

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

__all__ = [
    "DESTINATION_NOT_APPLIED",
    "ENV_OVERRIDES",
    "PROVIDER_KEYS",
    "SYSTEM_SETTINGS",
    "SYSTEM_SETTINGS_ENV",
    "FileLayerName",
    "Layer",
    "ReadLayerName",
    "env_layer",
    "is_provider_key",
    "layer_path",
    "read_layer",
    "read_toml",
    "system_settings_path",
]

FileLayerName = Literal["user", "project", "local"]
ReadLayerName = Literal["system", "user", "project", "local"]
"""The file layers: the system's (read only, an administrator's) and the writable ones."""

SYSTEM_SETTINGS = "/etc/zengine/settings.toml"
"""The system layer an administrator writes (a JupyterHub's image, say): below the user's, and
what it sets a user cannot loosen (see ``config/_system.py``)."""
SYSTEM_SETTINGS_ENV = "ZENGINE_SYSTEM_SETTINGS"
"""Names another system file (tests, images that keep /etc read-only); empty: none at all."""

ENV_OVERRIDES: dict[str, tuple[str, str]] = {
    "ZENGINE_MODEL": ("model", "main"),
    "ZENGINE_PROVIDER": ("provider", "kind"),
    "ZENGINE_BASE_URL": ("provider", "base_url"),
    "ZENGINE_CASSETTE": ("provider", "cassette"),
    "ZENGINE_RECORD": ("provider", "record"),
    "ZENGINE_SHELL": ("shell", "program"),
}
"""Environment variables that beat every file layer, and the key each sets."""

PROVIDER_KEYS = ("provider",)
"""Settings that decide which host receives the prompt and the key: an issue under one of
these (or an override of one) stops the chat's model client instead of being skipped.
(``model.main`` picks the public endpoint only without a base URL, and a broken one falls
back to the user's own model, so it is not among them.)"""

_DESTINATION_TEXT = re.compile(
    r"^\s*(?:\[\s*provider\s*[\].]|provider\s*[.=]|base_url\s*=)",
    re.MULTILINE,
)

DESTINATION_NOT_APPLIED = (
    "is not applied: the layer is skipped for the other problem listed with it"
)
"""The reason of the extra issue naming a skipped layer's ``[provider]`` key."""

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


def system_settings_path(environ: Mapping[str, str] | None = None) -> Path | None:
    """The system layer's file (:data:`SYSTEM_SETTINGS`, or ``$ZENGINE_SYSTEM_SETTINGS``)."""
    env = os.environ if environ is None else environ
    chosen = env.get(SYSTEM_SETTINGS_ENV)
    if chosen is None:
        return Path(SYSTEM_SETTINGS)
    return Path(chosen) if chosen.strip() else None


def _v1_path(name: ReadLayerName, path: Path) -> Path | None:
    """The v1 ``config.toml`` beside a v2 file; the local and system layers had none."""
    return None if name in ("local", "system") else path.with_name(V1_FILE_NAME)


def read_toml(path: Path) -> tuple[str, dict[str, Any]]:
    """Text and table of a TOML file; raises ``OSError`` or ``tomllib.TOMLDecodeError``."""
    text = path.read_text(encoding="utf-8")
    return text, tomllib.loads(text)


def read_layer(name: ReadLayerName, path: Path) -> tuple[Layer | None, list[SettingsIssue]]:
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
        text = source.read_bytes().decode("utf-8", "replace")
        return None, _with_destination([issue("is not UTF-8 text")], text, None, issue)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"\(at line (\d+), column \d+\)", str(exc))
        reason = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        problem = issue(f"not valid TOML: {reason}", line=int(found[1]) if found else None)
        return None, _with_destination([problem], _text_of(source), None, issue)
    if from_v1:
        try:
            data = convert_v1(data)
        except V1Error as exc:
            problem = issue(exc.reason, key=exc.key, line=line_of(text, (exc.key,)))
            return None, _with_destination([problem], text, None, issue)
    try:
        Settings.model_validate(data)
    except ValidationError as exc:
        issues = [_validation_issue(issue, err, text, from_v1) for err in exc.errors()]
        return None, _with_destination(issues, text, data, issue)
    return Layer(name=name, data=data, path=source, from_v1=from_v1), []


def _text_of(path: Path) -> str:
    """A file's text for a best-effort look (undecodable bytes replaced, unreadable: empty)."""
    try:
        return path.read_bytes().decode("utf-8", "replace")
    except OSError:
        return ""


def is_provider_key(key: str | None) -> bool:
    """Whether a dotted settings key (or a ``ZENGINE_*`` override) decides the destination."""
    if key in ENV_OVERRIDES:
        key = ".".join(ENV_OVERRIDES[key])
    return key is not None and any(
        key == prefix or key.startswith(f"{prefix}.") for prefix in PROVIDER_KEYS
    )


def _sets_destination(text: str, data: Mapping[str, Any] | None) -> str | None:
    """The destination key a skipped layer sets (``provider.base_url``, ...), if any."""
    if data is not None:
        provider = data.get("provider")
        if isinstance(provider, dict) and provider:
            return "provider." + next(iter(provider)) if len(provider) == 1 else "provider"
        return None
    return "provider" if _DESTINATION_TEXT.search(text) else None


def _with_destination(
    issues: list[SettingsIssue],
    text: str,
    data: Mapping[str, Any] | None,
    make: Callable[..., SettingsIssue],
) -> list[SettingsIssue]:
    """``issues``, plus one under the destination key when the skipped layer set one and no
    issue names it already."""
    if any(is_provider_key(i.key) for i in issues):
        return issues
    key = _sets_destination(text, data)
    if key is None:
        return issues
    line = line_of(text, tuple(key.split(".")))
    return [*issues, make(DESTINATION_NOT_APPLIED, key=key, line=line)]


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
