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
    ├── NotAvailableError         the part that does this is not built or not enabled
    └── ProviderError             a model provider refused or failed a request
        ├── ProviderStatusError       an HTTP error status (``status``, ``retry_after_s``)
        ├── ProviderConnectionError   could not connect, or the connection was lost
        ├── ProviderTimeoutError      connect or read timeout
        ├── ProviderStreamError       an error event inside a streamed answer
        ├── ProviderSetupError        the client cannot be built (no key, malformed URL)
        └── CostCapReachedError       ``agents.session_cost_cap_usd`` is reached

Messages never contain secrets (API keys, auth headers): house rule 6.
"""

from __future__ import annotations

__all__ = [
    "ComponentMissingError",
    "ConfigError",
    "CostCapReachedError",
    "NotAvailableError",
    "ProcessError",
    "ProcessTimeoutError",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderSetupError",
    "ProviderStatusError",
    "ProviderStreamError",
    "ProviderTimeoutError",
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


class CostCapReachedError(ProviderError):
    """The chat has spent ``agents.session_cost_cap_usd``; no more model requests."""
