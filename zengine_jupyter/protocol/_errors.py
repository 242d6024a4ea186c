"""The one exception hierarchy of zengine-jupyter.

Every error the engine raises on purpose derives from :class:`ZengineError`.
Adapters translate third-party exceptions at their edge (``raise ... from exc``);
frontends (``kernel/``, ``cli/``) decide how to show them.

The tree (later parts add their branches here, and only here)::

    ZengineError                  root; carries ``hint``: what to do next
    ├── ConfigError               a settings file, key or path is wrong
    │   ├── SettingsFileError     a settings file cannot be parsed or rewritten
    │   └── TrustStoreError       trust.json cannot be read or written
    ├── ComponentMissingError     a program the feature needs is not installed
    ├── ProcessError              a child process could not start or failed
    │   └── ProcessTimeoutError   a child process outlived its deadline
    ├── CheckpointError           the shadow repository failed, is busy, or has no such checkpoint
    │   └── CheckpointExpiredError  checkpoint retention removed that snapshot
    ├── McpServerError            an MCP server failed; carries ``server`` (its name)
    │   ├── McpConnectionError    could not start or connect, or dropped and the reconnect failed
    │   └── McpRequestError       it answered a request with an error, or not within the deadline
    ├── ToolError                 a tool call cannot be done as asked; the message goes to the model
    │   └── PathError             a path cannot be used (NUL, too long, a file on the way,
    │                             changed to a symlink mid-write); also a ValueError
    ├── StoreError                a chat's folder or log cannot be used
    │   ├── SessionNotFoundError  no chat has that id
    │   └── SessionLockedError    another process is writing that chat
    ├── SandboxError              the sandbox cannot confine this command as configured
    ├── VerificationError         a check is unknown, malformed, or its run could not be recorded
    ├── JsonRpcError              a JSON-RPC peer (a language server) misbehaved
    │   ├── JsonRpcFramingError   a frame that is not Content-Length framed JSON-RPC 2.0
    │   ├── JsonRpcClosedError    the peer is gone (EOF, dead process) or the connection was closed
    │   ├── JsonRpcTimeoutError   no reply within the request's timeout
    │   └── JsonRpcRemoteError    the peer answered with an error object (``code``, ``data``)
    ├── LspError                  a language server cannot answer
    │   └── LspUnavailableError   not installed, failed to start, or failed after its restarts
    ├── NotAvailableError         the part that does this is not built or not enabled
    └── ProviderError             a model provider refused or failed a request
        ├── ProviderStatusError       an HTTP error status (``status``, ``retry_after_s``)
        │   └── ContextTooLongError   the request does not fit the model's context window
        ├── ProviderConnectionError   could not connect, or the connection was lost
        ├── ProviderTimeoutError      connect or read timeout
        ├── ProviderStreamError       an error event inside a streamed answer
        ├── ProviderSetupError        the client cannot be built (no key, malformed URL)
        ├── CassetteError             a cassette is missing or malformed, or a request diverged
        └── CostCapReachedError       ``agents.session_cost_cap_usd`` is reached

Messages never contain secrets (API keys, auth headers): house rule 6.
"""

from __future__ import annotations

__all__ = [
    "CassetteError",
    "CheckpointError",
    "CheckpointExpiredError",
    "ComponentMissingError",
    "ConfigError",
    "ContextTooLongError",
    "CostCapReachedError",
    "JsonRpcClosedError",
    "JsonRpcError",
    "JsonRpcFramingError",
    "JsonRpcRemoteError",
    "JsonRpcTimeoutError",
    "LspError",
    "LspUnavailableError",
    "McpConnectionError",
    "McpRequestError",
    "McpServerError",
    "NotAvailableError",
    "PathError",
    "ProcessError",
    "ProcessTimeoutError",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderSetupError",
    "ProviderStatusError",
    "ProviderStreamError",
    "ProviderTimeoutError",
    "SandboxError",
    "SessionLockedError",
    "SessionNotFoundError",
    "SettingsFileError",
    "StoreError",
    "ToolError",
    "TrustStoreError",
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


class SettingsFileError(ConfigError):
    """A settings file does not parse or validate, so it cannot be rewritten safely."""


class TrustStoreError(ConfigError):
    """``trust.json`` is damaged or cannot be written; nothing is trusted until it is fixed."""


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


class SandboxError(ZengineError):
    """The sandbox cannot confine a command as configured (unsupported platform or machine).

    Raised instead of running a command with less confinement than was asked for.
    """


class StoreError(ZengineError):
    """A chat's folder, log or meta file cannot be read or written."""


class SessionNotFoundError(StoreError):
    """No chat with that id exists in the data folder."""


class SessionLockedError(StoreError):
    """Another writer (process or open handle) holds the chat's lock; readers still work."""

    def __init__(
        self, message: str, *, hint: str | None = None, holder_pid: int | None = None
    ) -> None:
        super().__init__(message, hint=hint)
        self.holder_pid = holder_pid


class NotAvailableError(ZengineError):
    """The part of zengine that does this is not built yet or not enabled here."""


class ProviderError(ZengineError):
    """A model provider refused or failed a request.

    ``retryable`` says whether waiting and asking again may help (rate limit, overload,
    server error, timeout, lost connection); ``retry_after_s`` is what the provider asked for.
    """

    retryable: bool = False

    def __init__(
        self,
        message: str,
        *,
        hint: str | None = None,
        status: int | None = None,
        retryable: bool | None = None,
        retry_after_s: float | None = None,
    ) -> None:
        super().__init__(message, hint=hint)
        self.status = status
        self.retry_after_s = retry_after_s
        if retryable is not None:
            self.retryable = retryable


class ProviderStatusError(ProviderError):
    """The provider answered with an HTTP error status."""


class ContextTooLongError(ProviderStatusError):
    """The provider refused the request as longer than the model's context window (Anthropic's
    ``prompt is too long``, OpenAI's ``context_length_exceeded``): compacting may help."""


class ProviderConnectionError(ProviderError):
    """The provider could not be reached, or the connection broke mid-answer."""

    retryable = True


class ProviderTimeoutError(ProviderError):
    """The provider did not connect or send data in time."""

    retryable = True


class ProviderStreamError(ProviderError):
    """An ``error`` event arrived inside a streamed (HTTP 200) answer."""


class ProviderSetupError(ProviderError):
    """The model client cannot be built: no key for the host, a malformed URL, ..."""


class CassetteError(ProviderError):
    """A recorded model session (cassette) is missing or malformed, or a request diverged
    from the recording; the message names the cassette and the step."""


class CostCapReachedError(ProviderError):
    """The chat has spent ``agents.session_cost_cap_usd``; no more model requests."""


class CheckpointError(ZengineError):
    """A snapshot or restore failed, the shadow repository is busy, or a checkpoint is unknown."""


class CheckpointExpiredError(CheckpointError):
    """Checkpoint retention removed this snapshot: its files can no longer be restored."""


class McpServerError(ZengineError):
    """An MCP server failed; ``server`` is its name as written in the settings."""

    def __init__(self, server: str, message: str, *, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.server = server


class McpConnectionError(McpServerError):
    """An MCP server could not be started or reached, or dropped and the one reconnect failed."""


class McpRequestError(McpServerError):
    """An MCP server rejected a request (unknown resource or prompt, bad arguments) or timed out."""


class ToolError(ZengineError):
    """A tool call cannot be done as asked (bad input, stale read, not unique, ...).

    Its message is returned to the model as the tool's error result, so it says what the
    model should do instead (for example: read the file again).
    """


class PathError(ToolError, ValueError):
    """A path cannot be used as given: a NUL or unencodable character, a name over the
    filesystem's limit, a file where a folder must be, or a folder that became a symlink
    after the gate decided (the write is refused, never redirected).

    Also a ``ValueError``, so code that treats bad values generically still catches it.
    """


class VerificationError(ZengineError):
    """A check id is unknown, a check entry is malformed, or a run could not be recorded."""


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
