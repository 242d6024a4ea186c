"""The seatbelt (``sandbox-exec``) profile for macOS: a pure SBPL generator, golden-tested.

Reads, process execution and Mach lookups stay allowed; every file write is denied except in the
writable areas, minus the protected paths (expressed with ``require-not``, so no rule order can
reopen them; absent paths are covered too, seatbelt matches paths, not files). A pinned ``.git``
may be written inside but not renamed or removed. With network off, only localhost is reachable
and Unix sockets are not (macOS has no private network namespace). Jupyter's runtime folders and
the engine's own folders (chats, ``auth.json``, checkpoints, user settings) can be neither read
nor written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from zengine_jupyter.host.sandbox._profile import SandboxProfile

__all__ = ["SEATBELT_PROGRAM", "build_seatbelt_argv", "build_seatbelt_profile"]

SEATBELT_PROGRAM = "/usr/bin/sandbox-exec"

_DEVICES = ("/dev/null", "/dev/zero", "/dev/tty", "/dev/dtracehelper", "/dev/stdout", "/dev/stderr")


def _quote(path: Path | str) -> str:
    text = str(path).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


def build_seatbelt_profile(profile: SandboxProfile) -> str:
    """The SBPL text for ``profile``."""
    exclusions: list[tuple[Path, str]] = [(pin, "literal") for pin in profile.pinned]
    exclusions += [
        (item.path, "subpath" if item.kind == "dir" else "literal") for item in profile.protected
    ]
    lines = [
        "(version 1)",
        "(allow default)",
        "(deny file-write*)",
        "(allow file-write*",
    ]
    for area in profile.writable:
        inside = [
            f"(require-not ({matcher} {_quote(path)}))"
            for path, matcher in exclusions
            if path.is_relative_to(area)
        ]
        if inside:
            lines.append(f"  (require-all (subpath {_quote(area)})")
            lines += [f"    {e}" for e in inside]
            lines[-1] += ")"
        else:
            lines.append(f"  (subpath {_quote(area)})")
    lines += [f"  (literal {_quote(dev)})" for dev in _DEVICES]
    lines.append('  (regex #"^/dev/fd/[0-9]+$"))')
    lines += [
        f"(deny network-outbound (remote unix-socket (path-literal {_quote(s)})))"
        for s in profile.masked
    ]
    lines += [f"(deny file-read* file-write* (subpath {_quote(h)}))" for h in profile.hidden]
    lines += [
        f"(deny file-read* file-write* ({'literal' if p.kind == 'file' else 'subpath'} "
        f"{_quote(p.path)}))"
        for p in profile.private
    ]
    if not profile.allow_network:
        lines += [
            "(deny network*)",
            '(allow network* (local ip "localhost:*"))',
            '(allow network* (remote ip "localhost:*"))',
        ]
    return "\n".join(lines) + "\n"


def build_seatbelt_argv(
    profile: SandboxProfile, command: Sequence[str], *, program: str = SEATBELT_PROGRAM
) -> tuple[str, ...]:
    """``sandbox-exec -p PROFILE -- command``."""
    return (program, "-p", build_seatbelt_profile(profile), "--", *command)
