"""Writing a permission rule ("always allow") into a chosen layer's file, keeping its style.

tomlkit edits the document in place, so comments, blank lines, key order and quoting survive;
the file is replaced atomically. A file that does not parse or validate is never rewritten.
"""

from __future__ import annotations

import tomllib
from typing import TYPE_CHECKING, Literal

import tomlkit
from pydantic import ValidationError
from tomlkit.exceptions import TOMLKitError

from zengine_jupyter.config._layers import layer_path, read_toml
from zengine_jupyter.config._rules import PermissionRule
from zengine_jupyter.config._schema import Settings
from zengine_jupyter.config._trust import atomic_write_text
from zengine_jupyter.config._v1 import V1_FILE_NAME, V1Error, convert_v1
from zengine_jupyter.protocol import SettingsFileError

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from zengine_jupyter.config._layers import FileLayerName

__all__ = ["RuleKind", "add_permission_rule", "add_rule_to_layer"]

RuleKind = Literal["allow", "ask", "deny"]


def add_rule_to_layer(
    layer: FileLayerName,
    rule: str,
    *,
    project: Path | None = None,
    kind: RuleKind = "allow",
    environ: Mapping[str, str] | None = None,
) -> bool:
    """Add ``rule`` to ``permissions.KIND`` of the user, project or local settings file."""
    return add_permission_rule(layer_path(layer, project, environ), rule, kind=kind)


def add_permission_rule(path: Path, rule: str, *, kind: RuleKind = "allow") -> bool:
    """Append ``rule`` to ``[permissions] KIND`` in ``path``; ``False`` if it is already there.

    Creates the file (and ``[permissions]``) when missing; a missing v2 file next to a v1
    ``config.toml`` is first created from the v1 settings, so nothing the user had is dropped.
    """
    try:
        text = str(PermissionRule.parse(rule))
    except ValueError as exc:
        raise SettingsFileError(str(exc), hint="fix the rule's syntax") from exc
    doc = _load_document(path)
    permissions = doc.get("permissions")
    if permissions is None:
        permissions = tomlkit.table()
        doc.append("permissions", permissions)
    if not isinstance(permissions, dict):
        raise SettingsFileError(f"{path}: permissions is not a table", hint="make it [permissions]")
    rules = permissions.get(kind)
    if rules is None:
        rules = tomlkit.array()
        permissions[kind] = rules
    if not isinstance(rules, list):
        raise SettingsFileError(f"{path}: permissions.{kind} is not a list", hint="make it a list")
    if text in rules:
        return False
    rules.append(text)
    rendered = tomlkit.dumps(doc)
    _validate(path, rendered)
    atomic_write_text(path, rendered)
    return True


def _load_document(path: Path) -> tomlkit.TOMLDocument:
    if path.exists():
        try:
            text, _ = read_toml(path)
            doc = tomlkit.parse(text)
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, TOMLKitError) as exc:
            raise SettingsFileError(
                f"{path} cannot be read as TOML, so it was not changed: {exc}",
                hint="fix the file (zengine settings shows the problem), then try again",
            ) from exc
        _validate(path, text)
        return doc
    v1 = path.with_name(V1_FILE_NAME)
    if path.name == "settings.toml" and v1.exists():
        return _from_v1(v1)
    return tomlkit.document()


def _from_v1(v1: Path) -> tomlkit.TOMLDocument:
    try:
        _, data = read_toml(v1)
        converted = convert_v1(data)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, V1Error) as exc:
        raise SettingsFileError(
            f"{v1} cannot be imported, so no settings.toml was created beside it: {exc}",
            hint="fix or remove the v1 config.toml, then try again",
        ) from exc
    doc = tomlkit.document()
    doc.add(tomlkit.comment(f"Imported from {v1.name} (v1) by zengine; that file is now unused."))
    for key, value in converted.items():
        doc[key] = value
    return doc


def _validate(path: Path, text: str) -> None:
    try:
        Settings.model_validate(tomllib.loads(text))
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(part) for part in first["loc"])
        raise SettingsFileError(
            f"{path}: {key}: {first['msg']}; the file was not changed",
            hint="fix the file (zengine settings shows the problem), then try again",
        ) from exc
