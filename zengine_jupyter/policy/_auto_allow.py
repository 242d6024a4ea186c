"""Sandbox auto-allow: a command that would ask runs without asking when every file it names
for writing stays inside the sandbox's writable areas (spec: "The sandbox", item 5) and none
of them is a protected path as the gate sees it (``_paths.py``: any ``.git`` folder, nested
repositories' too, ``.z-engine``, ``.claude``, ``.mcp.json``, the user's startup files).

This is one input to the gate, not the gate. ``PermissionGate`` (``_gate.py``) applies deny rules,
plan mode, ask rules and allow rules first (they all win over auto-allow) and consults its
``auto_allow`` hook (:func:`sandbox_auto_allow`) only for a command that would otherwise ask.
:func:`decide_auto_allow` returns ``ask`` whenever ``auto_allow`` is off, the sandbox is not
running (unavailable: the notice is shown and every command asks), or the command cannot be
analysed.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from zengine_jupyter.policy._paths import ProjectPaths
from zengine_jupyter.policy._shell import shell_writes
from zengine_jupyter.policy._writers import CannotAnalyse

if TYPE_CHECKING:
    from collections.abc import Callable

    from zengine_jupyter.host.sandbox import SandboxProfile

__all__ = ["AutoAllowDecision", "AutoAllowRequest", "decide_auto_allow", "sandbox_auto_allow"]


@dataclass(frozen=True)
class AutoAllowRequest:
    """What the gate knows about one Bash command."""

    command: str
    cwd: Path
    auto_allow: bool
    """``[shell.sandbox] auto_allow``."""
    profile: SandboxProfile | None
    """The profile the command will run under; None when it will not be sandboxed."""


@dataclass(frozen=True)
class AutoAllowDecision:
    verdict: Literal["allow", "ask"]
    reason: str
    writes: tuple[Path, ...] = ()

    @property
    def allowed(self) -> bool:
        return self.verdict == "allow"


def decide_auto_allow(request: AutoAllowRequest) -> AutoAllowDecision:
    """``allow`` when the command runs sandboxed and names no write outside the writable areas."""
    if not request.auto_allow:
        return AutoAllowDecision("ask", "auto_allow is off")
    profile = request.profile
    if profile is None:
        return AutoAllowDecision("ask", "the command would run outside the sandbox")
    try:
        found = shell_writes(request.command, str(request.cwd), str(profile.home))
    except CannotAnalyse as exc:
        return AutoAllowDecision("ask", f"cannot analyse the command: {exc.reason}")
    writes = tuple(Path(p) for p in dict.fromkeys(found))
    places = ProjectPaths.of(profile.root, home=profile.home)
    if any("\0" in str(p) for p in writes):
        return AutoAllowDecision("ask", "cannot analyse the command: a NUL in a path", writes)
    outside: list[str] = []
    for path in writes:
        why = places.classify(path).why
        if why is not None:
            outside.append(f"{path} (protected: {why})")
        elif not _may_write(profile, path):
            outside.append(str(path))
    if outside:
        shown = ", ".join(outside[:3])
        return AutoAllowDecision("ask", f"it writes outside the writable areas: {shown}", writes)
    if not writes:
        return AutoAllowDecision("allow", "it names no file for writing; the sandbox confines it")
    return AutoAllowDecision("allow", "every file it writes is inside the writable areas", writes)


def _may_write(profile: SandboxProfile, path: Path) -> bool:
    """``path`` is writable; a glob in its last part must match nothing protected (bash rules:
    without a leading dot it matches no dotfile)."""
    if not profile.is_writable(path):
        return False
    pattern = path.name
    if not any(ch in pattern for ch in "*?["):
        return True
    directory = path.parent
    guarded = [*profile.pinned, *(p.path for p in profile.protected)]
    for item in guarded:
        if item == directory or not item.is_relative_to(directory):
            continue
        child = item.relative_to(directory).parts[0]
        if child.startswith(".") and not pattern.startswith("."):
            continue
        if fnmatch.fnmatchcase(child, pattern):
            return False
    return True


def sandbox_auto_allow(
    profile: SandboxProfile | None, cwd: Path, *, auto_allow: bool
) -> Callable[[str], bool] | None:
    """The ``auto_allow`` hook for :class:`PermissionGate`, or None when it must not apply.

    ``profile`` is the plan's (``plan.profile``): None when commands will not run sandboxed
    (sandbox off, or unavailable: then the gate asks for every command).
    """
    if not auto_allow or profile is None:
        return None

    def check(command: str) -> bool:
        return decide_auto_allow(AutoAllowRequest(command, cwd, True, profile)).allowed

    return check
