"""The sandbox in a chat: ``[shell.sandbox]`` -> :class:`SandboxOptions`, one backend detection,
the Bash runner's planner and the gate's auto-allow hook (spec: "The sandbox").

When the sandbox is enabled, every command the agent's Bash tool and background shells start is
planned with :func:`plan_shell` and launched with ``open_planned`` (``ShellRunner.planner``).
When it is enabled but unavailable (no bwrap, namespaces refused, a protected path that is a
link), a ``Notice`` says why and how to fix it, at start and again for each command that runs
unconfined; the gate then asks for every command, since the auto-allow hook is not installed.
Commands the user types with ``!`` and hook scripts never come through here.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from zengine_jupyter.config import private_temp_dir
from zengine_jupyter.engine._extension import SessionExtension
from zengine_jupyter.policy import sandbox_auto_allow
from zengine_jupyter.protocol import Notice

if TYPE_CHECKING:
    from zengine_jupyter.config import Settings
    from zengine_jupyter.engine._session import Session
    from zengine_jupyter.host.sandbox import (
        CommandOrigin,
        CommandPlan,
        DetectOptions,
        SandboxBackend,
        SandboxOptions,
    )
    from zengine_jupyter.protocol import SandboxNotice

__all__ = ["SandboxExtension", "sandbox_options"]


def _under(root: Path, value: str) -> Path:
    path = Path(value).expanduser()
    return path if path.is_absolute() else root / path


def sandbox_options(settings: Settings, root: Path) -> SandboxOptions:
    """What the sandbox needs from the effective settings, for an agent rooted at ``root``.

    Relative ``additional_directories`` and ``extra_writable`` entries are under ``root``; the
    temporary folder is this user's own 0700 folder in the one Python uses
    (:func:`~zengine_jupyter.config.private_temp_dir`: on a shared host the commands' scratch
    files stay out of other users' reach); home is ``$HOME``.
    """
    from zengine_jupyter.host.sandbox import SandboxOptions

    sandbox = settings.shell.sandbox
    return SandboxOptions(
        root=root,
        temp_dir=private_temp_dir(),
        home=Path.home(),
        enabled=sandbox.enabled,
        allow_network=sandbox.allow_network,
        auto_allow=sandbox.auto_allow,
        additional_directories=tuple(
            _under(root, d) for d in settings.permissions.additional_directories
        ),
        extra_writable=tuple(_under(root, d) for d in sandbox.extra_writable),
    )


class SandboxExtension(SessionExtension):
    """Puts the chat's shell commands in the sandbox when ``[shell.sandbox] enabled = true``."""

    name = "sandbox"
    detect_options: DetectOptions | None = None
    """Where detection looks (None: the defaults); tests point it at a missing bwrap."""

    def __init__(self) -> None:
        self.options: SandboxOptions | None = None
        self.backend: SandboxBackend | None = None
        self._session: Session | None = None
        self._announced: SandboxNotice | None = None

    async def start(self, session: Session) -> None:
        self._session = session
        await self._apply(session)

    async def reload(self, session: Session) -> None:
        await self._apply(session)

    async def _apply(self, session: Session) -> None:
        if not session.settings.settings.shell.sandbox.enabled:  # host.sandbox stays unloaded
            self.options = None
            self.backend = None
            session.ctx.shells.planner = None
            session.gate.auto_allow = None
            return
        from zengine_jupyter.host.sandbox import detect_backend

        options = sandbox_options(session.settings.settings, session.root)
        self.options = options
        self.backend = await detect_backend(self.detect_options)
        session.ctx.shells.planner = self.plan
        notice = self.backend.notice
        if notice is not None and notice != self._announced:
            self._announced = notice
            session.announce(Notice(session_id=session.id, topic="sandbox", text=notice.text()))
        available = self.backend.available and options.auto_allow
        session.gate.auto_allow = self._auto_allow if available else None

    def _plan(self, command: str, origin: CommandOrigin, cwd: Path) -> CommandPlan:
        from zengine_jupyter.host.sandbox import plan_shell

        assert self.options is not None
        return plan_shell(self.options, self.backend, origin, command, cwd)

    def plan(self, command: str, origin: CommandOrigin, cwd: Path) -> CommandPlan:
        """How ``command`` runs (``ShellRunner.planner``; checks can use it too). A command
        that will run unconfined although the sandbox is on is announced, every time."""
        plan = self._plan(command, origin, cwd)
        if plan.notice is not None and self._session is not None:
            session = self._session
            text = plan.notice.text()
            session.journal.publish(Notice(session_id=session.id, topic="sandbox", text=text))
        return plan

    def _auto_allow(self, command: str) -> bool:
        """The gate's hook: the command runs sandboxed and writes only where it may."""
        from zengine_jupyter.host.sandbox import CommandOrigin

        assert self.options is not None
        root = self.options.root
        plan = self._plan(command, CommandOrigin.AGENT_BASH, root)
        check = sandbox_auto_allow(plan.profile, root, auto_allow=self.options.auto_allow)
        return check is not None and check(command)

    def reminder(self, session: Session) -> str | None:
        if self.backend is None or not self.backend.available or self.options is None:
            return None
        network = "on" if self.options.allow_network else "off (no connections, not even localhost)"
        return (
            "Your Bash commands run in a sandbox: they may write only inside the project, the "
            "additional directories, the temporary folder and package caches; .git/hooks, "
            f".git/config and the agent settings files are read-only. Network: {network}."
        )
