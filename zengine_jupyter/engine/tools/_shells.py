"""Running the agent's shell commands: foreground with a deadline, or in the background.

The runner owns every process it starts; ``aclose()`` stops them all. A sandbox, when on,
is applied through :attr:`ShellRunner.planner` (set by the session's sandbox extension): each
command is planned with ``host.sandbox.plan_shell`` and started with ``open_planned``, which
keeps the sandbox's placeholders and seccomp descriptor alive for the child's whole life. With
no planner the command starts as a plain ``bash -c``. Either way a command is tied to the
engine (``RunOptions.tied``: the child guard, or bubblewrap's pid namespace): if the engine
dies, even by SIGKILL, the command and everything it started die with it, and what a command
leaves running in the background ends when it ends. Commands the user types with ``!`` and
hook scripts never come through here.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from zengine_jupyter.config import open_private, private_dir
from zengine_jupyter.host import RunOptions, open_process
from zengine_jupyter.protocol import ToolError

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from contextlib import AbstractAsyncContextManager
    from pathlib import Path
    from typing import IO

    from zengine_jupyter.host.sandbox import CommandOrigin, CommandPlan, WarmProcess

__all__ = ["BackgroundShell", "CommandResult", "ShellRunner"]

_Origin = Literal["agent_bash", "background_shell", "check"]
"""Who asked for a command (``host.sandbox.CommandOrigin``'s values the shells use)."""
_KEEP_BYTES = 1 << 20  # in-memory tail of a background shell's output


@dataclass(frozen=True)
class CommandResult:
    exit_code: int | None
    """None when the command was stopped at its deadline."""
    output: bytes
    artifact: Path
    """The whole output, always saved (the model sees the end of it)."""


@dataclass
class BackgroundShell:
    id: str
    command: str
    artifact: Path
    task: asyncio.Task[int] | None = None
    buffer: bytearray = field(default_factory=bytearray)
    read_upto: int = 0
    total: int = 0
    exit_code: int | None = None


class ShellRunner:
    """Runs ``bash -c COMMAND`` in the project, its output captured to artifacts."""

    def __init__(
        self,
        root: Path,
        artifacts: Path,
        *,
        planner: Callable[[str, CommandOrigin, Path], CommandPlan] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.root = root
        self.artifacts = artifacts
        self.planner = planner
        """``(command, origin, cwd) -> CommandPlan``: set when ``[shell.sandbox]`` is enabled."""
        self.env = dict(env or {})
        self._counter = itertools.count(1)
        self._background: dict[str, BackgroundShell] = {}

    def _open(
        self, command: str, plan: CommandPlan | None
    ) -> AbstractAsyncContextManager[asyncio.subprocess.Process | WarmProcess]:
        """Start ``bash -c COMMAND`` (stdout and stderr merged), through the sandbox if planned."""
        options = RunOptions(cwd=self.root, env=self.env, tied=True)
        if plan is None:
            return open_process(["bash", "-c", command], options, merge_stderr=True)
        from zengine_jupyter.host.sandbox import open_planned

        return open_planned(plan, options, merge_stderr=True)

    def _plan(self, command: str, origin: _Origin) -> CommandPlan | None:
        """The sandbox's plan for ``command``; None with no planner (the sandbox is off).

        ``host.sandbox`` is imported only then: with the sandbox off, no chat loads it."""
        if self.planner is None:
            return None
        from zengine_jupyter.host.sandbox import CommandOrigin

        return self.planner(command, CommandOrigin(origin), self.root)

    async def _drain(
        self,
        command: str,
        origin: _Origin,
        log: IO[bytes],
        take: Callable[[bytes | None], None],
    ) -> int:
        """Run ``command`` to its end, each chunk of its output written to ``log`` and given to
        ``take``. When bubblewrap could not start it because another user's home went away
        meanwhile (``host.sandbox.lost_a_home``: the command never ran), its one line is
        dropped (``take(None)``, the log emptied) and the command starts once more."""
        for last in (False, True):
            plan = self._plan(command, origin)
            head = bytearray()
            async with self._open(command, plan) as proc:
                assert proc.stdout is not None
                while chunk := await proc.stdout.read(1 << 16):
                    log.write(chunk)
                    log.flush()
                    take(chunk)
                    if len(head) < 4096:
                        head += chunk
                code = await proc.wait()
            if last or plan is None:
                return code
            from zengine_jupyter.host.sandbox import lost_a_home

            if not lost_a_home(plan, code, bytes(head)):
                return code
            log.seek(0)
            log.truncate()
            take(None)
        raise AssertionError("unreachable")

    def _artifact(self, kind: str) -> Path:
        private_dir(self.artifacts)
        return self.artifacts / f"{kind}-{next(self._counter):04d}.log"

    async def run(
        self, command: str, timeout_s: float, origin: Literal["agent_bash", "check"] = "agent_bash"
    ) -> CommandResult:
        """Run to completion (or until ``timeout_s``); combined stdout and stderr. A
        verification check says so (``origin="check"``): sandboxed, it starts alone, never in
        the warm sandbox the agent's other commands share (``host.sandbox.WARM_ORIGINS``)."""
        artifact = self._artifact("bash")
        chunks: list[bytes] = []

        def take(chunk: bytes | None) -> None:
            if chunk is None:
                chunks.clear()
            else:
                chunks.append(chunk)

        exit_code: int | None = None
        with open_private(artifact) as log:
            try:
                async with asyncio.timeout(timeout_s):
                    exit_code = await self._drain(command, origin, log, take)
            except TimeoutError:
                exit_code = None
        return CommandResult(exit_code, b"".join(chunks), artifact)

    # ------------------------------------------------------------------ background
    def start(self, command: str) -> BackgroundShell:
        """Start ``command`` in the background; read it with :meth:`read`."""
        shell = BackgroundShell(
            id=f"shell-{len(self._background) + 1}",
            command=command,
            artifact=self._artifact("shell"),
        )
        shell.task = asyncio.get_running_loop().create_task(self._pump(shell))
        self._background[shell.id] = shell
        return shell

    async def _pump(self, shell: BackgroundShell) -> int:
        def take(chunk: bytes | None) -> None:
            if chunk is None:
                shell.buffer.clear()
                shell.total = shell.read_upto = 0
                return
            shell.buffer += chunk
            shell.total += len(chunk)
            if len(shell.buffer) > _KEEP_BYTES:
                drop = len(shell.buffer) - _KEEP_BYTES
                del shell.buffer[:drop]
                shell.read_upto = max(0, shell.read_upto - drop)

        with open_private(shell.artifact) as log:
            shell.exit_code = await self._drain(shell.command, "background_shell", log, take)
        return shell.exit_code

    def get(self, shell_id: str) -> BackgroundShell:
        shell = self._background.get(shell_id)
        if shell is None:
            known = ", ".join(self._background) or "none"
            raise ToolError(f"no background shell {shell_id!r}; running or finished: {known}")
        return shell

    def read(self, shell_id: str) -> tuple[BackgroundShell, bytes]:
        """New output of a background shell since the last read."""
        shell = self.get(shell_id)
        new = bytes(shell.buffer[shell.read_upto :])
        shell.read_upto = len(shell.buffer)
        return shell, new

    async def kill(self, shell_id: str) -> BackgroundShell:
        shell = self.get(shell_id)
        if shell.task is not None and not shell.task.done():
            shell.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await shell.task
        return shell

    async def aclose(self) -> None:
        """Stop every background shell (idempotent)."""
        for shell_id in list(self._background):
            await self.kill(shell_id)
