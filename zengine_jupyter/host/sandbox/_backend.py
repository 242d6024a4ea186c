"""Which sandbox works here: found by running one trivial sandboxed command, then cached.

When none works (Windows, Linux without bwrap, a kernel or container that refuses namespaces, a
machine the seccomp filter does not know), the result carries a :class:`SandboxNotice` saying why
and how to fix it; commands then run unconfined and the gate keeps asking.
"""

from __future__ import annotations

import os
import platform as _platform
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from zengine_jupyter.host._process import RunOptions, run
from zengine_jupyter.host._search_path import which
from zengine_jupyter.host.sandbox._bubblewrap import build_bwrap_argv
from zengine_jupyter.host.sandbox._profile import SandboxProfile
from zengine_jupyter.host.sandbox._seatbelt import SEATBELT_PROGRAM
from zengine_jupyter.host.sandbox._seccomp import ARCHES, network_off_program, program_pipe
from zengine_jupyter.protocol import ProcessError, SandboxNotice

__all__ = [
    "BackendName",
    "DetectOptions",
    "SandboxBackend",
    "clear_backend_cache",
    "detect_backend",
]

BackendName = Literal["bubblewrap", "seatbelt"]

_BWRAP_INSTALL = (
    "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install "
    "bubblewrap; Arch: pacman -S bubblewrap), or set [shell.sandbox] enabled = false"
)
_USERNS_FIX = (
    "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu "
    "24.04+ an AppArmor profile for bwrap), or run the container with --security-opt "
    "seccomp=unconfined / --privileged"
)


@dataclass(frozen=True)
class DetectOptions:
    """Where to look; tests point ``bwrap`` at a missing program."""

    platform: str = sys.platform
    machine: str = field(default_factory=_platform.machine)
    bwrap: str = "bwrap"
    sandbox_exec: str = SEATBELT_PROGRAM
    timeout_s: float = 10.0


@dataclass(frozen=True)
class SandboxBackend:
    """The detected backend, or the notice saying why there is none."""

    name: BackendName | None
    program: str | None = None
    machine: str = ""
    notice: SandboxNotice | None = None

    @property
    def available(self) -> bool:
        return self.name is not None and self.program is not None and self.notice is None


_cache: dict[DetectOptions, SandboxBackend] = {}


def clear_backend_cache() -> None:
    """Forget detected backends (after the user installs bwrap, say)."""
    _cache.clear()


async def detect_backend(options: DetectOptions | None = None) -> SandboxBackend:
    """The backend for this machine, trying it once per ``options`` (cached)."""
    opts = options or DetectOptions()
    cached = _cache.get(opts)
    if cached is None:
        cached = await _detect(opts)
        _cache[opts] = cached
    return cached


def _off(opts: DetectOptions, backend: BackendName | None, reason: str, fix: str) -> SandboxBackend:
    notice = SandboxNotice(backend=backend, platform=opts.platform, reason=reason, fix=fix)
    return SandboxBackend(name=None, machine=opts.machine, notice=notice)


async def _detect(opts: DetectOptions) -> SandboxBackend:
    if opts.platform.startswith("linux"):
        return await _detect_bwrap(opts)
    if opts.platform == "darwin":
        return await _detect_seatbelt(opts)
    return _off(
        opts,
        None,
        f"no sandbox exists for platform {opts.platform!r}",
        "run zengine under WSL2 (Linux) with bubblewrap installed, or accept approvals",
    )


async def _try(argv: tuple[str, ...], opts: DetectOptions, fds: tuple[int, ...]) -> str | None:
    """None when ``argv`` ran and exited 0, else what went wrong."""
    try:
        done = await run(argv, RunOptions(cwd=Path("/"), timeout_s=opts.timeout_s, pass_fds=fds))
    except ProcessError as exc:
        return exc.message
    if done.ok:
        return None
    err = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
    return err[0] if err else f"the trial command exited with status {done.returncode}"


async def _detect_bwrap(opts: DetectOptions) -> SandboxBackend:
    program = which(opts.bwrap)
    if program is None:
        return _off(opts, "bubblewrap", f"{opts.bwrap} is not installed", _BWRAP_INSTALL)
    if opts.machine not in ARCHES:
        return _off(
            opts,
            "bubblewrap",
            f"the network filter does not support this machine ({opts.machine})",
            "report it; meanwhile the gate asks for every command",
        )
    probe = SandboxProfile(
        root=Path("/"),
        writable=(),
        pinned=(),
        protected=(),
        allow_network=False,
        home=Path("/"),
        temp_dir=Path("/"),
    )
    read = program_pipe(network_off_program(opts.machine))
    try:
        argv = build_bwrap_argv(probe, ("true",), cwd=Path("/"), seccomp_fd=read, program=program)
        failure = await _try(argv, opts, (read,))
    finally:
        os.close(read)
    if failure is not None:
        reason = f"bwrap cannot start a sandbox here: {failure}"
        return _off(opts, "bubblewrap", reason, _USERNS_FIX)
    return SandboxBackend(name="bubblewrap", program=program, machine=opts.machine)


async def _detect_seatbelt(opts: DetectOptions) -> SandboxBackend:
    program = which(opts.sandbox_exec)
    if program is None:
        reason = f"{opts.sandbox_exec} was not found"
        return _off(opts, "seatbelt", reason, "it ships with macOS: check PATH")
    failure = await _try((program, "-p", "(version 1)(allow default)", "true"), opts, ())
    if failure is not None:
        return _off(
            opts,
            "seatbelt",
            f"sandbox-exec cannot start a sandbox here: {failure}",
            "sandbox-exec cannot run inside another sandbox: start zengine outside it",
        )
    return SandboxBackend(name="seatbelt", program=program, machine=opts.machine)
