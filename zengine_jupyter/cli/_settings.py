"""``zengine settings``: effective settings, the layer of each value, and what was skipped."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zengine_jupyter.config import find_project_root

if TYPE_CHECKING:
    import argparse

    from zengine_jupyter.config import EffectiveSettings

__all__ = ["add_settings_parser", "render_settings", "run_settings", "settings_json"]

_SECRET_KEYS = re.compile(r"^mcp\.servers\.[^.]+$")
_ONLY_REF = re.compile(r"^\$\{[A-Za-z_][A-Za-z0-9_]*\}$")


def add_settings_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "settings", help="show the effective settings and the layer each value came from"
    )
    parser.add_argument("--layers", action="store_true", help="name the layer of every value")
    parser.add_argument("--json", action="store_true", help="print everything as JSON")
    parser.add_argument(
        "--project", type=Path, default=None, help="project folder (default: the current one)"
    )
    parser.add_argument(
        "--reference", action="store_true", help="print the settings reference (docs/settings.md)"
    )


def _masked(key: str, value: Any) -> Any:
    """Header and env values of MCP servers are shown only when they are ``${VAR}`` references."""
    if not _SECRET_KEYS.match(key) or not isinstance(value, dict):
        return value
    shown = dict(value)
    for table in ("headers", "env"):
        if shown.get(table):
            values = shown[table].items()
            shown[table] = {name: v if _ONLY_REF.match(v) else "***" for name, v in values}
    return shown


def settings_json(effective: EffectiveSettings) -> dict[str, Any]:
    """Everything ``zengine settings --json`` prints."""
    return {
        "project": str(effective.project) if effective.project else None,
        "trusted": effective.trusted,
        "trust_problem": effective.trust_problem,
        "layers": [
            {
                "name": layer.name,
                "file": str(layer.path) if layer.path else None,
                "from_v1": layer.from_v1,
            }
            for layer in effective.layers
        ],
        "issues": [issue.model_dump() for issue in effective.issues],
        "withheld": [item.model_dump() for item in effective.withheld],
        "locked": [{"key": lock.key, "overridden": lock.overridden} for lock in effective.locked],
        "values": {
            key: {"value": _masked(key, value), "layer": effective.source_of(key)}
            for key, value in effective.flat().items()
        },
    }


def render_settings(effective: EffectiveSettings, *, layers: bool) -> str:
    """The text form: a header (project, trust, files, problems) then ``key = value`` lines."""
    lines: list[str] = []
    if effective.project is not None:
        trust = "trusted" if effective.trusted else "not trusted; run `zengine trust` to trust it"
        lines.append(f"project: {effective.project} ({trust})")
    if effective.trust_problem:
        lines.append(f"trust: {effective.trust_problem}")
    for layer in effective.layers:
        if layer.path is not None:
            note = " (v1 file imported)" if layer.from_v1 else ""
            lines.append(f"{layer.name} layer: {layer.path}{note}")
        else:
            lines.append(f"{layer.name} layer: {', '.join(_env_names(layer.data))}")
    lines += [f"skipped: {issue.describe()}" for issue in effective.issues]
    for item in effective.withheld:
        detail = f" = {item.detail}" if item.detail else ""
        lines.append(f"withheld until trusted: {item.key}{detail} (from {item.layer})")
    for lock in effective.locked:
        lines.append(f"locked by the system layer: {lock.key} (the {lock.overridden} layer's "
                     "value does not apply)")  # fmt: skip
    if lines:
        lines.append("")
    for key, value in effective.flat().items():
        line = f"{key} = {json.dumps(_masked(key, value))}"
        if layers:
            line += f"  # {effective.source_of(key)}"
        lines.append(line)
    return "\n".join(lines)


def _env_names(data: Any) -> list[str]:
    from zengine_jupyter.config import ENV_OVERRIDES

    return [var for var, (section, key) in ENV_OVERRIDES.items() if key in data.get(section, {})]


def run_settings(args: argparse.Namespace) -> int:
    from zengine_jupyter.config import load_settings, render_reference

    if args.reference:
        sys.stdout.write(render_reference())
        return 0
    project = find_project_root(args.project or Path.cwd())
    effective = load_settings(project)
    if args.json:
        sys.stdout.write(json.dumps(settings_json(effective), indent=2) + "\n")
    else:
        sys.stdout.write(render_settings(effective, layers=args.layers) + "\n")
    return 0
