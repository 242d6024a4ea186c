"""Running hooks: the user's commands at engine events, with the event's JSON on stdin.

Hooks run in layer order, one after another, through :func:`host.run` (argv, environment
allowlist, deadline). They are never sandboxed: they are the user's own programs, and only trusted
layers contribute them (``config.restrict_to_user_level`` withholds an untrusted project's).

A ``pre_tool_use`` hook blocks the call by exiting with status 2; its stderr is the message the
model sees. A ``pre_tool_use`` hook that cannot start or times out blocks too (fail closed); at
other events a failing hook is reported and the turn goes on.
"""

from __future__ import annotations

import fnmatch
import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING

from zengine_jupyter.host._process import RunOptions, run
from zengine_jupyter.protocol import ProcessError, ProcessTimeoutError

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from zengine_jupyter.config import HookSettings, HooksSettings
    from zengine_jupyter.protocol import HookEventName, HookPayload

__all__ = ["BLOCK_EXIT_CODE", "HookOutcome", "HookRun", "hook_argv", "hook_matches", "run_hooks"]

BLOCK_EXIT_CODE = 2
"""Exit status with which a pre_tool_use hook blocks the call."""

_KEEP = 4000  # characters of a hook's output kept in the outcome


@dataclass(frozen=True)
class HookRun:
    """One hook command that was run (or could not be)."""

    argv: tuple[str, ...]
    returncode: int | None
    """``None`` when it could not start or was stopped at its timeout."""
    stdout: str
    stderr: str
    error: str | None = None
    """Why it did not finish (not found, timed out), in words."""


@dataclass(frozen=True)
class HookOutcome:
    """Everything the hooks of one event did."""

    event: HookEventName
    runs: tuple[HookRun, ...] = ()
    blocked: bool = False
    """pre_tool_use only: the call must not run."""
    message: str | None = None
    """Why it was blocked, for the model and the user."""

    @property
    def failures(self) -> tuple[HookRun, ...]:
        """Hooks that did not start, timed out or exited non-zero (not counting a block)."""
        return tuple(r for r in self.runs if r.returncode != 0)


def hook_argv(command: str | list[str]) -> list[str]:
    """A hook's argv: a list as is, a string split into words (no shell, no expansion)."""
    return list(command) if isinstance(command, list) else shlex.split(command)


def hook_matches(matcher: str, tool_name: str | None) -> bool:
    """``*`` (or empty) matches every event; otherwise globs over the tool name, split by ``|``."""
    patterns = [part.strip() for part in matcher.split("|") if part.strip()]
    if not patterns or "*" in patterns:
        return True
    if tool_name is None:
        return False
    return any(fnmatch.fnmatchcase(tool_name, pattern) for pattern in patterns)


async def run_hooks(
    hooks: HooksSettings,
    payload: HookPayload,
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> HookOutcome:
    """Run the hooks of ``payload.event`` that match, in order; stop at the first block."""
    stdin = payload.model_dump_json().encode()
    entries: list[HookSettings] = getattr(hooks, payload.event)
    extra = {
        "ZENGINE_HOOK_EVENT": payload.event,
        "ZENGINE_PROJECT_DIR": payload.project_dir,
        "ZENGINE_SESSION_ID": payload.session_id,
        **(env or {}),
    }
    runs: list[HookRun] = []
    for hook in entries:
        if not hook_matches(hook.matcher, payload.tool_name):
            continue
        options = RunOptions(cwd=cwd, env=extra, timeout_s=hook.timeout, stdin=stdin)
        done = await _run_one(hook, options)
        runs.append(done)
        if payload.event != "pre_tool_use":
            continue
        if done.returncode == BLOCK_EXIT_CODE:
            message = done.stderr.strip() or f"blocked by the hook {shlex.join(done.argv)}"
            return HookOutcome(payload.event, tuple(runs), blocked=True, message=message)
        if done.returncode is None:
            message = f"the pre_tool_use hook {shlex.join(done.argv)} {done.error}; call blocked"
            return HookOutcome(payload.event, tuple(runs), blocked=True, message=message)
    return HookOutcome(payload.event, tuple(runs))


async def _run_one(hook: HookSettings, options: RunOptions) -> HookRun:
    argv = hook_argv(hook.command)
    try:
        done = await run(argv, options)
    except ProcessTimeoutError:
        return HookRun(tuple(argv), None, "", "", error=f"timed out after {hook.timeout:g} s")
    except ProcessError as exc:
        return HookRun(tuple(argv), None, "", "", error=f"could not start ({exc.message})")
    return HookRun(
        tuple(argv),
        done.returncode,
        done.stdout.decode("utf-8", "replace")[-_KEEP:],
        done.stderr.decode("utf-8", "replace")[-_KEEP:],
    )
