"""The system layer's locks: what an administrator's ``/etc/zengine/settings.toml`` sets, no
user, project or environment layer can loosen.

The system layer is merged lowest (below the user's), so merging alone would let a user
override it. After the merge (and after trust restricted an untrusted project) this pass puts
back every value the system layer set, by the same rule as trust, "caution adds up, loosening
is withheld":

* rule lists and hooks (``COMBINED``, ``CONCATENATED``: ``permissions.deny``, ``ask``, ...)
  already hold the system's items: every layer's items add up, nothing to do;
* limits (``CAPPED``: ``agents.session_cost_cap_usd``, ``verification.max_continuations``):
  a higher layer may lower them, never raise or remove them;
* anything else the system sets (``shell.sandbox.enabled``, ``provider.*``, ``model.main``, a
  server of ``mcp.servers``, a check): the system's value, whatever a higher layer says.

Each key put back is reported (``LockedSetting``) so ``zengine settings --layers`` can say
why the user's value does not apply.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from zengine_jupyter.config._merge import BY_ID, COMBINED, CONCATENATED, ENTRY_MAPS, dotted
from zengine_jupyter.config._restrict import CAPPED, ResolvedSettings, get_path, set_path
from zengine_jupyter.config._schema import Settings

if TYPE_CHECKING:
    from collections.abc import Mapping

    from zengine_jupyter.config._layers import Layer
    from zengine_jupyter.protocol import LayerName

__all__ = ["LockedSetting", "lock_to_system"]

Path_ = tuple[str, ...]
_ADDS_UP = COMBINED | CONCATENATED


@dataclass(frozen=True)
class LockedSetting:
    """A key the system layer decides, and the layer whose different value it overrode."""

    key: str
    overridden: LayerName


def lock_to_system(
    resolved: ResolvedSettings, system: Layer | None
) -> tuple[ResolvedSettings, tuple[LockedSetting, ...]]:
    """``resolved`` with the system layer's values put back over any looser higher layer."""
    if system is None:
        return resolved, ()
    data = resolved.settings.model_dump()
    provenance = dict(resolved.provenance)
    locked: list[LockedSetting] = []

    def put(path: Path_, value: Any) -> None:
        key = dotted(path)
        current = _lookup(data, path)
        if current is not _MISSING and current != value:
            locked.append(LockedSetting(key, resolved.source_of(key)))
        set_path(data, path, copy.deepcopy(value))
        for name in [k for k in provenance if k == key or k.startswith((key + ".", key + "["))]:
            provenance[name] = "system"
        provenance[key] = "system"

    def walk(table: Mapping[str, Any], path: Path_) -> None:
        for name, value in table.items():
            here = (*path, name)
            if here in _ADDS_UP:
                continue
            if here in CAPPED:
                current = get_path(data, here)
                if value is not None and (current is None or current > value):
                    put(here, value)
            elif here in ENTRY_MAPS or here in BY_ID:
                _lock_entries(here, value, data, put)
            elif isinstance(value, dict):
                walk(value, here)
            else:
                put(here, get_path(system_values, here))

    system_values = Settings.model_validate(system.data).model_dump()
    walk(system.data, ())
    settings = Settings.model_validate(data)
    return ResolvedSettings(settings, provenance), tuple(locked)


def _lock_entries(path: Path_, value: Any, data: dict[str, Any], put: Any) -> None:
    """A system server, price or check: that entry is the system's (others may be added)."""
    current = get_path(data, path)
    if path in BY_ID:  # verification.checks: a list of tables by id
        wanted = {check["id"]: check for check in value}
        kept = [check for check in current if check.get("id") not in wanted]
        system_checks = Settings.model_validate({"verification": {"checks": value}})
        merged = [*system_checks.model_dump()["verification"]["checks"], *kept]
        if merged != current:
            put(path, merged)
        return
    model = Settings.model_validate(_nest(path, value)).model_dump()
    for name in value:
        put((*path, name), get_path(model, (*path, name)))


def _nest(path: Path_, value: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    here = out
    for part in path[:-1]:
        here = here.setdefault(part, {})
    here[path[-1]] = value
    return out


_MISSING = object()


def _lookup(data: Mapping[str, Any], path: Path_) -> Any:
    try:
        return get_path(data, path)
    except (KeyError, TypeError):
        return _MISSING
