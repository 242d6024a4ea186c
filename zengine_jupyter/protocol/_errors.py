"""The one exception hierarchy of zengine-jupyter.

Every error the engine raises on purpose derives from :class:`ZengineError`.
Adapters translate third-party exceptions at their edge (``raise ... from exc``);
frontends (``kernel/``, ``cli/``) decide how to show them.

The tree (later parts add their branches here, and only here)::

    ZengineError                  root; carries ``hint``: what to do next
    ├── ConfigError               a settings file, key or path is wrong
    ├── ComponentMissingError     a program the feature needs is not installed
    ├── ProcessError              a child process could not start or failed
    │   └── ProcessTimeoutError   a child process outlived its deadline
    ├── CheckpointError           the shadow repository failed, is busy, or has no such checkpoint
    ├── VerificationError         a check is unknown, malformed, or its run could not be recorded
    └── NotAvailableError         the part that does this is not built or not enabled

Messages never contain secrets (API keys, auth headers): house rule 6.
"""

from __future__ import annotations

__all__ = [
    "CheckpointError",
    "ComponentMissingError",
    "ConfigError",
    "NotAvailableError",
    "ProcessError",
    "ProcessTimeoutError",
    "VerificationError",
    "ZengineError",
]


class ZengineError(Exception):
    """Root of every error zengine-jupyter raises on purpose.

    ``message`` says what went wrong, naming the file, key or server involved;
    ``hint`` says what the user can do next.
    """

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        if self.hint:
            return f"{self.message} ({self.hint})"
        return self.message


class ConfigError(ZengineError):
    """A settings file, key or folder is missing, malformed or not allowed."""


class ComponentMissingError(ZengineError):
    """A program a feature needs (git, bwrap, node, ...) is not installed."""

    def __init__(self, component: str, *, install: str) -> None:
        super().__init__(f"{component} is not installed", hint=f"install it with: {install}")
        self.component = component
        self.install = install


class ProcessError(ZengineError):
    """A child process could not be started, or ended in a way the caller cannot use."""


class ProcessTimeoutError(ProcessError):
    """A child process was still running at its deadline and was stopped."""


class NotAvailableError(ZengineError):
    """The part of zengine that does this is not built yet or not enabled here."""


class CheckpointError(ZengineError):
    """A snapshot or restore failed, the shadow repository is busy, or a checkpoint is unknown."""


class VerificationError(ZengineError):
    """A check id is unknown, a check entry is malformed, or a run could not be recorded."""
