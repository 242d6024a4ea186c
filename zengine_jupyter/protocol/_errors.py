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
    ├── JsonRpcError              a JSON-RPC peer (a language server) misbehaved
    │   ├── JsonRpcFramingError   a frame that is not Content-Length framed JSON-RPC 2.0
    │   ├── JsonRpcClosedError    the peer is gone (EOF, dead process) or the connection was closed
    │   ├── JsonRpcTimeoutError   no reply within the request's timeout
    │   └── JsonRpcRemoteError    the peer answered with an error object (``code``, ``data``)
    ├── LspError                  a language server cannot answer
    │   └── LspUnavailableError   not installed, failed to start, or failed after its restarts
    └── NotAvailableError         the part that does this is not built or not enabled

Messages never contain secrets (API keys, auth headers): house rule 6.
"""

from __future__ import annotations

__all__ = [
    "CheckpointError",
    "ComponentMissingError",
    "ConfigError",
    "JsonRpcClosedError",
    "JsonRpcError",
    "JsonRpcFramingError",
    "JsonRpcRemoteError",
    "JsonRpcTimeoutError",
    "LspError",
    "LspUnavailableError",
    "NotAvailableError",
    "ProcessError",
    "ProcessTimeoutError",
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


class JsonRpcError(ZengineError):
    """A JSON-RPC exchange failed; subclasses say how."""


class JsonRpcFramingError(JsonRpcError):
    """The peer sent bytes that are not a Content-Length framed JSON-RPC 2.0 message."""


class JsonRpcClosedError(JsonRpcError):
    """The peer closed its output or died, or our side closed the connection."""


class JsonRpcTimeoutError(JsonRpcError):
    """A request got no reply within its timeout (the request is abandoned, not retried)."""


class JsonRpcRemoteError(JsonRpcError):
    """The peer answered a request with a JSON-RPC error object."""

    def __init__(self, message: str, *, code: int, data: object = None) -> None:
        super().__init__(message)
        self.code = code
        self.data = data


class LspError(ZengineError):
    """A language server could not answer a question about a file."""


class LspUnavailableError(LspError):
    """No server can serve the file: not installed, failed to start, or failed after restarts.

    ``server`` names it; ``install`` is the command that installs it, when that helps.
    """

    def __init__(
        self, message: str, *, server: str, install: str | None = None, hint: str | None = None
    ) -> None:
        super().__init__(message, hint=hint)
        self.server = server
        self.install = install
