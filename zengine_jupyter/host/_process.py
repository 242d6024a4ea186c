"""Every child process zengine starts goes through here (house rule 7).

argv lists only (never a shell string), an environment allowlist, a deadline,
and a stop that escalates: close stdin, SIGTERM, then SIGKILL. The agent's shell commands
are started ``tied``: under the child guard, so nothing they start outlives the engine.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from zengine_jupyter.host._search_path import search_path, which
from zengine_jupyter.protocol import ProcessError, ProcessTimeoutError

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Mapping, Sequence

__all__ = [
    "CHILD_GUARD",
    "SAFE_ENV_NAMES",
    "STOP_GRACE_S",
    "CompletedRun",
    "RunOptions",
    "child_environment",
    "is_secret_name",
    "open_process",
    "run",
]

SAFE_ENV_NAMES: frozenset[str] = frozenset(
    {
        "HOME",
        "LANG",
        "LANGUAGE",
        "LOGNAME",
        "PATH",
        "SHELL",
        "SYSTEMROOT",
        "TEMP",
        "TERM",
        "TMP",
        "TMPDIR",
        "TZ",
        "USER",
        "VIRTUAL_ENV",
        "ZENGINE_HOME",
    }
)
"""Variables a child inherits by default; ``LC_*`` are passed too. Secrets are not."""

_SECRET_WORDS: tuple[str, ...] = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL")
"""A name holding one of these (``ANTHROPIC_API_KEY``, ``LC_GITHUB_TOKEN``, ...) is never
inherited, whatever the allowlist says (``LC_*`` is a common way to smuggle variables through
ssh). A child that needs such a variable gets it only from its own configured ``env``."""


def is_secret_name(name: str) -> bool:
    """True for an environment variable name that looks like it holds a credential."""
    upper = name.upper()
    return any(word in upper for word in _SECRET_WORDS)


STOP_GRACE_S = 2.0
"""How long a stopped command has between SIGTERM and SIGKILL."""

CHILD_GUARD = Path(__file__).with_name("_childguard.py")
"""The guard script for ``RunOptions(tied=True)``; it imports nothing from zengine."""


def _argv(argv: Sequence[str], opts: RunOptions) -> list[str]:
    """``argv``, under the child guard when ``opts.tied`` (and a Python to run it is known)."""
    if not opts.tied or not sys.executable or os.name != "posix":
        return list(argv)
    program = argv[0]
    if "/" not in program and which(program, opts.env.get("PATH")) is None:
        # found as the child would look for it; the guard could only report exit status 127
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), program)
    return [sys.executable, "-I", "-S", str(CHILD_GUARD), str(os.getpid()), "--", *argv]


@dataclass(frozen=True)
class RunOptions:
    """How to run one command."""

    cwd: Path | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    """Added on top of the allowlisted environment (these win)."""
    timeout_s: float = 60.0
    stdin: bytes | None = None
    pass_fds: tuple[int, ...] = ()
    """Descriptors the child inherits under the same numbers (the sandbox passes its seccomp
    program this way); every other descriptor is closed in the child."""
    tied: bool = False
    """Start it under the child guard (:data:`CHILD_GUARD`): it and everything it starts die
    with the engine, even a SIGKILLed one, and what it leaves running dies when it ends (the
    agent's shell commands; bubblewrap's pid namespace does the same for sandboxed ones)."""


@dataclass(frozen=True)
class CompletedRun:
    """What a finished command left behind."""

    argv: tuple[str, ...]
    returncode: int
    stdout: bytes
    stderr: bytes

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def text(self) -> str:
        """stdout decoded leniently (a child may print anything)."""
        return self.stdout.decode("utf-8", errors="replace")


def child_environment(
    extra: Mapping[str, str] | None = None, base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment a child gets: the allowlist from ``base`` plus ``extra``.

    Values that start with ``()`` (exported shell functions) and names that look like a
    credential (:func:`is_secret_name`) are dropped from ``base``, and so are ``PATH``'s
    relative entries (:func:`search_path`); ``extra`` is the caller's explicit choice (a
    server's configured ``env``) and is kept as given.
    """
    source = os.environ if base is None else base
    env = {
        name: value
        for name, value in source.items()
        if (name in SAFE_ENV_NAMES or name.startswith("LC_"))
        and not value.startswith("()")
        and not is_secret_name(name)
    }
    if "PATH" in env:  # its relative entries would find the project's programs (_search_path)
        env["PATH"] = search_path(env["PATH"])
    if extra:
        env.update(extra)
    return env


async def run(argv: Sequence[str], options: RunOptions | None = None) -> CompletedRun:
    """Run ``argv`` to completion and capture its output.

    Raises :class:`ProcessError` if it cannot start and
    :class:`ProcessTimeoutError` when it outlives ``options.timeout_s``
    (the child is stopped first). A non-zero exit is *not* an error here:
    callers read ``returncode``.
    """
    opts = options or RunOptions()
    if not argv:
        raise ProcessError("cannot run an empty command")
    try:
        proc = await asyncio.create_subprocess_exec(
            *_argv(argv, opts),
            cwd=opts.cwd,
            env=child_environment(opts.env),
            stdin=asyncio.subprocess.PIPE if opts.stdin is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
            pass_fds=opts.pass_fds,
        )
    except OSError as exc:
        raise _not_started(argv, opts, exc) from exc
    try:
        async with asyncio.timeout(opts.timeout_s):
            stdout, stderr = await proc.communicate(opts.stdin)
    except TimeoutError as exc:
        await _stop(proc)
        raise ProcessTimeoutError(
            f"{argv[0]!r} was still running after {opts.timeout_s:g} s and was stopped"
        ) from exc
    except BaseException:
        await _stop(proc)
        raise
    return CompletedRun(tuple(argv), proc.returncode or 0, stdout, stderr)


@contextlib.asynccontextmanager
async def open_process(
    argv: Sequence[str],
    options: RunOptions | None = None,
    *,
    merge_stderr: bool = False,
    writable: bool = False,
) -> AsyncIterator[asyncio.subprocess.Process]:
    """Start ``argv`` with its stdout piped for streaming; it is stopped when the block exits.

    For readers that may stop early (a listing cut off at a limit) and for commands whose
    output is streamed. ``options.timeout_s`` is the caller's to enforce; stdin is closed, or
    piped for the caller to stream into with ``writable``; stderr is discarded, or merged into
    stdout with ``merge_stderr``.
    """
    opts = options or RunOptions()
    if not argv:
        raise ProcessError("cannot run an empty command")
    try:
        proc = await asyncio.create_subprocess_exec(
            *_argv(argv, opts),
            cwd=opts.cwd,
            env=child_environment(opts.env),
            stdin=asyncio.subprocess.PIPE if writable else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT if merge_stderr else asyncio.subprocess.DEVNULL,
            start_new_session=True,
            pass_fds=opts.pass_fds,
        )
    except OSError as exc:
        raise _not_started(argv, opts, exc) from exc
    try:
        yield proc
    finally:
        await _stop(proc)


def _not_started(argv: Sequence[str], opts: RunOptions, exc: OSError) -> ProcessError:
    """Why ``argv`` could not start: its working folder is missing (the child's ``chdir``
    failed; the error then names that folder), or the program itself."""
    if opts.cwd is not None and exc.filename is not None and str(exc.filename) == str(opts.cwd):
        return ProcessError(
            f"could not start {argv[0]!r} in {str(opts.cwd)!r}: {exc.strerror or exc}",
            hint="the working folder was moved or removed; open the project where it is now",
        )
    return ProcessError(
        f"could not start {argv[0]!r}: {exc.strerror or exc}",
        hint="check that the program is installed and on PATH",
    )


async def _stop(proc: asyncio.subprocess.Process) -> None:
    """Terminate the child's whole process group, then kill it if it lingers."""
    if proc.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, 15)
    try:
        async with asyncio.timeout(STOP_GRACE_S):
            await proc.wait()
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, 9)
        await proc.wait()
