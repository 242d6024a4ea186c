"""Wrapping the agent's commands in the sandbox, and only those.

Who started a command decides: the agent's Bash commands, its background shells and verification
checks run inside the sandbox when it is enabled (:data:`SANDBOXED_ORIGINS`); commands the user
types with ``!`` and hook scripts never do (they are the user's own, run as the user).

Two steps, so the gate can decide in between: :func:`plan_command` says what will happen
(sandboxed or not, and the notice when the sandbox is wanted but unavailable, in which case the
gate must ask); :func:`launch` is the context that must span the child's whole life: it creates
the placeholders that block absent protected paths, hands over the seccomp program and removes
the placeholders once the last sandboxed command using them has ended.

:func:`run_planned` and :func:`open_planned` start the agent's Bash commands and background
shells (:data:`WARM_ORIGINS`) under bubblewrap in the profile's warm sandbox (``_warm``), and
everything else through :func:`launch`: a verification check, seatbelt, or a warm sandbox that
cannot start or take the command.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TYPE_CHECKING

from zengine_jupyter.host._process import (
    STOP_GRACE_S,
    CompletedRun,
    RunOptions,
    child_environment,
    open_process,
    run,
)
from zengine_jupyter.host.sandbox._bubblewrap import build_bwrap_argv
from zengine_jupyter.host.sandbox._placeholders import (
    hold_placeholders,
    release_later,
    write_seeds,
)
from zengine_jupyter.host.sandbox._reuse import reused_profile
from zengine_jupyter.host.sandbox._seatbelt import build_seatbelt_argv
from zengine_jupyter.host.sandbox._seccomp import network_off_program, program_pipe
from zengine_jupyter.host.sandbox._warm import start_warm
from zengine_jupyter.protocol import ProcessTimeoutError, SandboxError, SandboxNotice

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
    from pathlib import Path

    from zengine_jupyter.host.sandbox._backend import SandboxBackend
    from zengine_jupyter.host.sandbox._profile import SandboxOptions, SandboxProfile
    from zengine_jupyter.host.sandbox._warm_process import WarmProcess

__all__ = [
    "SANDBOXED_ORIGINS",
    "WARM_ORIGINS",
    "CommandOrigin",
    "CommandPlan",
    "Launch",
    "launch",
    "lost_a_home",
    "open_planned",
    "plan_command",
    "plan_shell",
    "run_planned",
]


class CommandOrigin(StrEnum):
    """Who asked for a command to run."""

    AGENT_BASH = "agent_bash"
    BACKGROUND_SHELL = "background_shell"
    CHECK = "check"
    USER_BANG = "user_bang"
    """Typed by the user with ``!``: never sandboxed."""
    HOOK = "hook"
    """A hook script from settings: never sandboxed."""


SANDBOXED_ORIGINS: frozenset[CommandOrigin] = frozenset(
    {CommandOrigin.AGENT_BASH, CommandOrigin.BACKGROUND_SHELL, CommandOrigin.CHECK}
)


@dataclass(frozen=True)
class CommandPlan:
    """How one command will run."""

    command: tuple[str, ...]
    cwd: Path
    origin: CommandOrigin
    profile: SandboxProfile | None = None
    """Set when the command runs sandboxed."""
    backend: SandboxBackend | None = None
    notice: SandboxNotice | None = None
    """Set when the sandbox is enabled but unavailable: the command runs unconfined."""

    @property
    def sandboxed(self) -> bool:
        return self.profile is not None

    @property
    def unconfined_by_failure(self) -> bool:
        """The sandbox was wanted for this command and is not there: the gate must ask."""
        return self.notice is not None


@dataclass(frozen=True)
class Launch:
    """What to hand to the process runner: argv, inherited descriptors, extra environment."""

    argv: tuple[str, ...]
    cwd: Path
    pass_fds: tuple[int, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)


def plan_command(
    options: SandboxOptions,
    backend: SandboxBackend | None,
    origin: CommandOrigin,
    command: Sequence[str],
    cwd: Path,
) -> CommandPlan:
    """Decide how ``command`` (argv) from ``origin`` runs under ``options``.

    ``backend`` is :func:`detect_backend`'s answer (None when not detected, e.g. disabled).
    """
    plan = CommandPlan(tuple(command), cwd, origin)
    if not options.enabled or origin not in SANDBOXED_ORIGINS:
        return plan
    if backend is None or not backend.available:
        notice = backend.notice if backend is not None else None
        if notice is None:
            notice = _notice(
                options,
                "no sandbox backend was detected",
                "detect one with host.sandbox.detect_backend() before running commands",
                None,
            )
        return replace(plan, notice=notice)
    try:
        profile = reused_profile(options)  # derive_profile's answer, re-checked
    except SandboxError as exc:  # a sandbox that cannot start: unconfined, and the gate asks
        return replace(plan, notice=_notice(options, exc.message, exc.hint or "", backend.name))
    return replace(plan, profile=profile, backend=backend)


def _notice(options: SandboxOptions, reason: str, fix: str, backend: str | None) -> SandboxNotice:
    return SandboxNotice(backend=backend, platform=options.platform, reason=reason, fix=fix)


def plan_shell(
    options: SandboxOptions,
    backend: SandboxBackend | None,
    origin: CommandOrigin,
    script: str,
    cwd: Path,
    shell: str = "bash",
) -> CommandPlan:
    """:func:`plan_command` for a shell command line (``bash -c SCRIPT``)."""
    return plan_command(options, backend, origin, (shell, "-c", script), cwd)


@contextlib.contextmanager
def launch(plan: CommandPlan) -> Iterator[Launch]:
    """The argv to start for ``plan``; keep the context open until the child has exited."""
    if plan.profile is None or plan.backend is None or plan.backend.program is None:
        yield Launch(plan.command, plan.cwd)
        return
    profile = plan.profile
    env = {"TMPDIR": str(profile.temp_dir)}
    if plan.backend.name == "seatbelt":
        argv = build_seatbelt_argv(profile, plan.command, program=plan.backend.program)
        yield Launch(argv, plan.cwd, env=env)
        return
    held = hold_placeholders(profile.protected)
    fd: int | None = None
    try:
        write_seeds(held, profile.refreshed().protected)
        profile = profile.refreshed()  # after seeding: what exists now is what bwrap binds
        if not profile.allow_network:
            fd = program_pipe(network_off_program(plan.backend.machine))
        argv = build_bwrap_argv(
            profile, plan.command, cwd=plan.cwd, seccomp_fd=fd, program=plan.backend.program
        )
        yield Launch(argv, plan.cwd, pass_fds=() if fd is None else (fd,), env=env)
    finally:
        if fd is not None:
            os.close(fd)
        release_later(held)  # off the command's critical path (host.sandbox.settle_placeholders)


def _options(plan: CommandPlan, opts: RunOptions, spec: Launch) -> RunOptions:
    """``opts`` for ``spec``; a ``tied`` command under bubblewrap needs no child guard, since
    ``--die-with-parent`` and its pid namespace already end it, and all it started, with the
    engine (and what it leaves running when it ends)."""
    bwrap = plan.sandboxed and plan.backend is not None and plan.backend.name == "bubblewrap"
    return replace(
        opts,
        cwd=spec.cwd,
        env={**spec.env, **opts.env},
        pass_fds=spec.pass_fds,
        tied=opts.tied and not bwrap,
    )


WARM_ORIGINS: frozenset[CommandOrigin] = frozenset(
    {CommandOrigin.AGENT_BASH, CommandOrigin.BACKGROUND_SHELL}
)
"""Origins whose sandboxed commands run in a warm sandbox (``_warm``); a verification check
always starts alone, so nothing running beside it can reach its output or its status."""


async def _warm(
    plan: CommandPlan, opts: RunOptions, *, stdin: bool, stderr: bool | None
) -> WarmProcess | None:
    """``plan`` started in a warm sandbox, when it is one for that; None: start it alone."""
    backend, profile = plan.backend, plan.profile
    if (
        profile is None
        or backend is None
        or backend.name != "bubblewrap"
        or backend.program is None
        or plan.origin not in WARM_ORIGINS
        or not hasattr(os, "pidfd_open")
    ):
        return None
    env = child_environment({"TMPDIR": str(profile.temp_dir), **opts.env})
    return await start_warm(
        profile, backend, plan.command, cwd=plan.cwd, env=env, stdin=stdin, stderr=stderr
    )


async def run_planned(plan: CommandPlan, options: RunOptions | None = None) -> CompletedRun:
    """Run ``plan`` to completion through :func:`host.run`, sandboxed when the plan says so
    (started once more when :func:`lost_a_home` says it never started)."""
    opts = options or RunOptions()
    warm = await _warm(plan, opts, stdin=opts.stdin is not None, stderr=True)
    if warm is not None:
        return await _finish_warm(plan, warm, opts)
    with launch(plan) as spec:
        done = await run(spec.argv, _options(plan, opts, spec))
    if done.stdout or not lost_a_home(plan, done.returncode, done.stderr):
        return done
    with launch(plan) as spec:  # the launch leaves out the home that is gone
        return await run(spec.argv, _options(plan, opts, spec))


async def _finish_warm(plan: CommandPlan, proc: WarmProcess, opts: RunOptions) -> CompletedRun:
    """:func:`host.run`'s wait, deadline and stop for a command in a warm sandbox."""
    try:
        async with asyncio.timeout(opts.timeout_s):
            stdout, stderr = await proc.communicate(opts.stdin)
    except TimeoutError as exc:
        await proc.stop(STOP_GRACE_S)
        raise ProcessTimeoutError(
            f"{plan.command[0]!r} was still running after {opts.timeout_s:g} s and was stopped"
        ) from exc
    except BaseException:
        await proc.stop(STOP_GRACE_S)
        raise
    return CompletedRun(plan.command, proc.returncode or 0, stdout, stderr)


def lost_a_home(plan: CommandPlan, returncode: int | None, output: bytes) -> bool:
    """Whether bubblewrap could not start ``plan`` because another user's home it was to
    cover went away meanwhile (a hub's admin removing a user): after the launch's last look,
    its ``--tmpfs`` cannot make the folder (``bwrap: Can't mkdir HOME: ...``); once covered,
    removing the folder outside detaches the cover, and the next step on it fails (``bwrap:
    Can't remount readonly on /newroot/HOME: ...``). Its one line of output names a home of the
    profile's (or a path below one) that is gone now. The command itself never ran, so
    starting it again is safe, and the next :func:`launch` leaves that home out
    (:meth:`SandboxProfile.refreshed`)."""
    profile, backend = plan.profile, plan.backend
    if returncode != 1 or profile is None or backend is None or backend.name != "bubblewrap":
        return False
    if output.count(b"\n") > 1 or not output.startswith(b"bwrap: Can't "):
        return False
    line = output.decode("utf-8", "replace").removesuffix("\n")
    return any(
        any(f" {where}{home}{end}" in line for where in ("", "/newroot") for end in (":", "/"))
        and not os.path.lexists(home)
        for home in profile.foreign
    )


@contextlib.asynccontextmanager
async def open_planned(
    plan: CommandPlan, options: RunOptions | None = None, *, merge_stderr: bool = False
) -> AsyncIterator[asyncio.subprocess.Process | WarmProcess]:
    """:func:`host.open_process` for ``plan``: streamed output, for Bash and background shells.

    The sandbox's placeholders live at least as long as the block (a warm sandbox keeps them
    until it stops).
    """
    opts = options or RunOptions()
    warm = await _warm(plan, opts, stdin=False, stderr=None if merge_stderr else False)
    if warm is not None:
        try:
            yield warm
        finally:
            await warm.stop(STOP_GRACE_S)
        return
    with launch(plan) as spec:
        merged = _options(plan, opts, spec)
        async with open_process(spec.argv, merged, merge_stderr=merge_stderr) as proc:
            yield proc
