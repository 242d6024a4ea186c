"""A derived sandbox profile, reused while everything it was derived from is unchanged.

:func:`derive_profile` is a pure function of its options, the environment (the engine's and
Jupyter's folders) and what its probes saw: which paths exist and as what, where links lead,
the git config files' text and the listing of a folder. Deriving it costs ~1.4 ms per command
(most of a sandboxed ``true``'s own overhead, issue 25); asking the same questions again costs a
fraction of that. So the first derivation records every question and its answer, and a later
plan with the same options and environment asks them all again: when every answer is the same,
the derivation would take the same steps and return the same profile, so that profile is
returned; when one differs (a ``.git`` appeared, a config gained an include, a folder became a
link), it is derived afresh. Nothing is trusted that was not re-checked on this call.
"""

from __future__ import annotations

import os
import stat
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from zengine_jupyter.host.sandbox._homes import other_homes
from zengine_jupyter.host.sandbox._placeholders import ensure_lock_folder
from zengine_jupyter.host.sandbox._profile import (
    _entries,
    _read_text,
    _resolve,
    derive_profile,
    probe_path,
)

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from zengine_jupyter.host.sandbox._profile import SandboxOptions, SandboxProfile

__all__ = ["reused_profile"]

_KEEP = 8
_ASKS: dict[str, Callable[[Path], Any]] = {
    "probe": probe_path,
    "resolve": _resolve,
    "read": _read_text,
    "entries": _entries,
}
_Answers = tuple[tuple[str, "Path", Any], ...]
_cache: OrderedDict[tuple[object, ...], tuple[SandboxProfile, _Answers]] = OrderedDict()
_lock = threading.Lock()


def reused_profile(options: SandboxOptions) -> SandboxProfile:
    """``derive_profile(options)``, from the last derivation when its answers still hold."""
    ensure_lock_folder()  # one of the data folder's entries the profile sees, from the start
    # other users' homes come from the password database and a folder listing: asked afresh
    # on every call (a user added since is hidden at once) and part of the key
    homes = tuple(other_homes(options.home))
    key = (options, tuple(os.environ.items()), os.getuid() if hasattr(os, "getuid") else None,
           homes)  # fmt: skip
    with _lock:
        found = _cache.get(key)
    if found is not None and _still(found[1]):
        return found[0]
    asked: dict[tuple[str, Path], Any] = {}

    def recording(kind: str) -> Callable[[Path], Any]:
        ask = _ASKS[kind]

        def answer(path: Path) -> Any:
            value = ask(path)
            asked.setdefault((kind, path), value)
            return value

        return answer

    profile = derive_profile(
        options,
        probe=recording("probe"),
        resolve=recording("resolve"),
        read=recording("read"),
        entries=recording("entries"),
        others=homes,
    )
    with _lock:
        _cache[key] = (profile, tuple((kind, path, v) for (kind, path), v in asked.items()))
        _cache.move_to_end(key)
        while len(_cache) > _KEEP:
            _cache.popitem(last=False)
    return profile


def _still(answers: _Answers) -> bool:
    """Whether every question gets the answer it got when the profile was derived."""
    links: dict[str, bool] = {}
    try:
        for kind, path, value in answers:
            if kind == "resolve" and value == path:
                if not _no_link_on(str(path), links):
                    return False
            elif (probe_path(str(path)) if kind == "probe" else _ASKS[kind](path)) != value:
                return False
    except OSError:  # a folder it cannot search now, say: the derivation says what it means
        return False
    return True


def _no_link_on(path: str, links: dict[str, bool]) -> bool:
    """Whether ``path`` (absolute, normalised) still resolves to itself: no folder on the way
    and not the path itself is a symbolic link (what ``realpath`` checks, one ``lstat`` per
    prefix, each prefix checked once per replay)."""
    end = len(path)
    while end > 0:
        prefix = path[:end]
        linked = links.get(prefix)
        if linked is False:
            return True  # checked already, with every folder above it
        if linked is None:
            try:
                linked = stat.S_ISLNK(os.lstat(prefix).st_mode)
            except OSError:
                linked = False  # absent: realpath keeps the name as it is
            links[prefix] = linked
        if linked:
            return False
        end = path.rfind("/", 0, end)
    return True
