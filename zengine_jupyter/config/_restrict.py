"""What an untrusted project may change: ``restrict_to_user_level``.

Until its folder is trusted, a project (``.z-engine/settings.toml`` and ``settings.local.toml``)
is a guest: it may add caution, never hand itself the keys. The tables below are the whole rule;
``tests/config/test_settings_schema.py`` checks every key of :class:`Settings` is in exactly
one.
A new setting that runs code or loosens permissions belongs in ``WITHHELD``, with a test.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from zengine_jupyter.config._merge import dotted, flatten
from zengine_jupyter.config._schema import Settings
from zengine_jupyter.protocol import LayerName, WithheldSetting

__all__ = [
    "APPLIED",
    "CAPPED",
    "WITHHELD",
    "ResolvedSettings",
    "get_path",
    "restrict_to_user_level",
    "set_path",
]

Path_ = tuple[str, ...]

WITHHELD: tuple[Path_, ...] = (
    # they run programs
    ("hooks",),
    ("mcp",),
    ("verification", "checks"),
    ("verification", "auto_checks"),  # names which checks run by themselves
    # they would approve actions for the user
    ("permissions", "mode"),
    ("permissions", "allow"),
    ("permissions", "additional_directories"),
    ("permissions", "auto_allow_read_only_bash"),
    # how commands run, where code is sent, web access, language servers, the decision model
    ("shell",),
    ("provider",),
    ("web",),
    ("lsp",),
    ("decisions",),
    # prices decide when agents.session_cost_cap_usd stops a chat: a project cannot cheapen them
    ("pricing",),
    # retention deletes the user's undo history (or fills the data folder): the user's call
    ("checkpoints",),
)
"""Taken from the user level (defaults, user file, environment) while untrusted."""

CAPPED: tuple[Path_, ...] = (
    ("agents", "session_cost_cap_usd"),
    ("verification", "max_continuations"),
    ("kernel", "run_cell_timeout_s"),
    ("kernel", "run_cell_max_timeout_s"),
    ("kernel", "output_chars"),
    ("kernel", "image_max_bytes"),
    ("kernel", "max_images"),
    ("permissions", "allow_bypass"),  # false < true: a project may turn bypass off, not on
)
"""Limits an untrusted project may lower but not raise (``None`` means no limit)."""

APPLIED: tuple[Path_, ...] = (
    ("permissions", "deny"),
    ("permissions", "ask"),
    ("model",),
    ("context",),
    ("verification", "mode"),
    ("appearance",),
)
"""Applied from an untrusted project as written: they only add caution or change looks."""


@dataclass(frozen=True)
class ResolvedSettings:
    """Merged settings and, per flattened key, the layer its value came from."""

    settings: Settings
    provenance: Mapping[str, LayerName]

    def source_of(self, key: str) -> LayerName:
        """The layer a flattened key (``provider.base_url``, ``permissions.allow[0]``) came from."""
        return self.provenance.get(key, "default")


def get_path(data: Mapping[str, Any], path: Path_) -> Any:
    """The value at ``path`` in nested tables (KeyError when a table is missing)."""
    for part in path:
        data = data[part]
    return data


def set_path(data: dict[str, Any], path: Path_, value: Any) -> None:
    """Set the value at ``path``, making the tables on the way that are missing."""
    for part in path[:-1]:
        data = data.setdefault(part, {})
    data[path[-1]] = value


def _matcher(prefixes: list[str]) -> Callable[[str], bool]:
    """Whether a flattened key is one of ``prefixes`` or lies under one."""
    exact = frozenset(prefixes)
    starts = tuple(p + sep for p in prefixes for sep in (".", "["))
    return lambda key: key in exact or key.startswith(starts)


def _looser_cap(project: Any, user: Any) -> bool:
    return user is not None and (project is None or project > user)


def restrict_to_user_level(
    full: ResolvedSettings, user_level: ResolvedSettings
) -> tuple[ResolvedSettings, tuple[WithheldSetting, ...]]:
    """``full`` with every withheld key taken from ``user_level``, and what that changed.

    ``full`` is every layer merged; ``user_level`` the defaults, the user's file and the
    environment. The returned list names each project value that was not applied (the banner).
    """
    data = full.settings.model_dump()
    user = user_level.settings.model_dump()
    swapped = [dotted(path) for path in WITHHELD]
    for path in WITHHELD:
        set_path(data, path, copy.deepcopy(get_path(user, path)))
    for path in CAPPED:
        if _looser_cap(get_path(data, path), get_path(user, path)):
            set_path(data, path, get_path(user, path))
            swapped.append(dotted(path))
    settings = Settings.model_validate(data)
    under = _matcher(swapped)
    flat = flatten(settings.model_dump())
    provenance = {key: (user_level if under(key) else full).source_of(key) for key in flat}
    withheld = _differences(full, flat, under)
    return ResolvedSettings(settings, provenance), withheld


def _differences(
    full: ResolvedSettings, restricted: Mapping[str, Any], under: Callable[[str], bool]
) -> tuple[WithheldSetting, ...]:
    out: list[WithheldSetting] = []
    for key, value in flatten(full.settings.model_dump()).items():
        if not under(key) or restricted.get(key, _MISSING) == value:
            continue
        layer = full.source_of(key)
        if layer not in ("project", "local"):
            continue
        out.append(
            WithheldSetting(key=re.sub(r"\[\d+\]$", "", key), layer=layer, detail=_detail(value))
        )
    return tuple(out)


_MISSING = object()


def _detail(value: Any) -> str | None:
    """A short, secret-free description: a rule, a hook's command, a check's id, a scalar."""
    if isinstance(value, Mapping):
        if "id" in value:
            return str(value["id"])
        command = value.get("command")
        if isinstance(command, list):
            return " ".join(command)
        return command if isinstance(command, str) else None  # a server's program, else the key
    if value is None or isinstance(value, list):
        return None
    return str(value)
