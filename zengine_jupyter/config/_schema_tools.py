"""Settings groups that start programs: hooks, MCP and LSP servers, checks and the shell.

Every one of these is withheld from an untrusted project (see ``_restrict.py``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from zengine_jupyter.protocol import ConfigError, DataModel

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = [
    "CheckSettings",
    "HookSettings",
    "HooksSettings",
    "LspServerSettings",
    "LspSettings",
    "McpServerSettings",
    "McpSettings",
    "SandboxSettings",
    "ShellSettings",
    "StrictModel",
    "VerificationSettings",
    "expand_env_refs",
]

_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def expand_env_refs(value: str, environ: Mapping[str, str], *, where: str) -> str:
    """Replace each ``${VAR}`` in an MCP header or env value with the variable's value.

    ``where`` names the setting (``mcp.servers.github.headers.Authorization``) for the error; the
    value itself is never put in a message.
    """

    def one(found: re.Match[str]) -> str:
        name = found.group(1)
        if name not in environ:
            raise ConfigError(
                f"{where} refers to ${{{name}}}, which is not set",
                hint=f"export {name} before starting zengine, or change the setting",
            )
        return environ[name]

    return _ENV_REF.sub(one, value)


class StrictModel(DataModel):
    """Base of every settings table: unknown keys and wrong types are errors, never coerced.

    The keys' docstrings are not read into the fields here (``use_attribute_docstrings`` parses
    every class's source: a tenth of a first ``%%agent`` turn); the settings reference reads
    them itself (``_reference.py``)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


Command = str | list[str]
"""A program: an argv list, or one string split like a shell would (no pipes or expansion)."""


def _command_not_empty(value: Command) -> Command:
    if isinstance(value, str) and not value.strip():
        raise ValueError("the command is empty")
    if isinstance(value, list) and (not value or not value[0].strip()):
        raise ValueError("the command is empty: give the program as the first item")
    return value


class HookSettings(StrictModel):
    """One hook: a command run at an engine event with the event's JSON on stdin."""

    command: Command
    """The program to run (argv list, or a string split into words; not run through a shell)."""
    matcher: str = "*"
    """pre/post_tool_use: tool names it applies to; globs, alternatives separated by ``|``."""
    timeout: float = Field(default=60.0, gt=0, le=600)
    """Seconds before the hook is stopped. A pre_tool_use hook that times out blocks the call."""

    _check_command = field_validator("command")(_command_not_empty)


class HooksSettings(StrictModel):
    """``[[hooks.EVENT]]`` entries; every layer's hooks add up, lowest layer first."""

    session_start: list[HookSettings] = Field(default_factory=list)
    """Run when a chat opens or resumes."""
    user_prompt_submit: list[HookSettings] = Field(default_factory=list)
    """Run when the user sends a message, before the model sees it."""
    pre_tool_use: list[HookSettings] = Field(default_factory=list)
    """Run before a tool call; exit status 2 blocks the call, stderr says why."""
    post_tool_use: list[HookSettings] = Field(default_factory=list)
    """Run after a tool call with its result."""
    stop: list[HookSettings] = Field(default_factory=list)
    """Run when a turn ends."""


class McpServerSettings(StrictModel):
    """``[mcp.servers.NAME]``: a stdio server (``command``) or a remote one (``url``)."""

    command: str | None = None
    """Program of a stdio server."""
    args: list[str] = Field(default_factory=list)
    """Its arguments."""
    env: dict[str, str] = Field(default_factory=dict)
    """Extra environment for it; values may use ``${VAR}`` from your environment."""
    cwd: str | None = None
    """Folder it starts in (relative to the project root); default the project root."""
    url: str | None = None
    """Streamable-HTTP endpoint of a remote server."""
    headers: dict[str, str] = Field(default_factory=dict)
    """HTTP headers for ``url``; values may use ``${VAR}`` (keep tokens out of the file)."""
    enabled: bool = True
    """Set false to keep the entry but not start it."""
    disabled_tools: list[str] = Field(default_factory=list)
    """Tool names of this server the agent does not get."""

    def resolved_headers(self, name: str, environ: Mapping[str, str]) -> dict[str, str]:
        """``headers`` with ``${VAR}`` references filled in (raises ConfigError if one is unset)."""
        where = f"mcp.servers.{name}.headers"
        items = self.headers.items()
        return {k: expand_env_refs(v, environ, where=f"{where}.{k}") for k, v in items}

    def resolved_env(self, name: str, environ: Mapping[str, str]) -> dict[str, str]:
        """``env`` with ``${VAR}`` references filled in (raises ConfigError if one is unset)."""
        where = f"mcp.servers.{name}.env"
        return {k: expand_env_refs(v, environ, where=f"{where}.{k}") for k, v in self.env.items()}

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerSettings:
        if (self.command is None) == (self.url is None):
            raise ValueError("set exactly one of command (stdio) or url (streamable HTTP)")
        if self.url is not None and not re.match(r"^https?://", self.url):
            raise ValueError("url must start with http:// or https://")
        return self


class McpSettings(StrictModel):
    """MCP servers; a server in a higher layer replaces one of the same name."""

    servers: dict[str, McpServerSettings] = Field(default_factory=dict)
    """``[mcp.servers.NAME]`` tables."""
    startup_wait: float = Field(default=10.0, ge=0, le=120)
    """Seconds the first model request of a turn waits for servers still starting (0: no
    wait); a server not ready by then is listed as starting and its tools join a later
    request."""


class LspServerSettings(StrictModel):
    """``[lsp.servers.NAME]``: a language server for some file types (adds to the built-ins)."""

    command: str
    """The server's program."""
    args: list[str] = Field(default_factory=list)
    """Its arguments (for most servers ``["--stdio"]``)."""
    file_types: list[str] = Field(min_length=1)
    """File extensions it serves, without the dot: ``["py", "pyi"]``."""
    initialization_options: dict[str, Any] = Field(default_factory=dict)
    """Sent as ``initializationOptions`` in the LSP initialize request."""


class LspSettings(StrictModel):
    """Language servers; a server in a higher layer replaces one of the same name."""

    servers: dict[str, LspServerSettings] = Field(default_factory=dict)
    """``[lsp.servers.NAME]`` tables."""


class CheckSettings(StrictModel):
    """``[[verification.checks]]``: a check that adds to, or replaces by id, a discovered one."""

    id: str = Field(min_length=1)
    """Unique name; a higher layer's check with the same id replaces this one."""
    kind: Literal["test", "build", "typecheck", "lint", "format"]
    """What it proves: only test, build and typecheck checks can make a turn Verified."""
    command: Command
    """The program to run (argv list, or a string split into words)."""
    cwd: str | None = None
    """Folder it runs in, relative to the project root; default the project root."""

    _check_command = field_validator("command")(_command_not_empty)


class VerificationSettings(StrictModel):
    """Recorded checks and what happens at the end of a turn that changed files."""

    mode: Literal["off", "report", "auto", "strict"] = "report"
    """off: nothing; report: compute the badge; auto: run auto_checks when evidence is missing;
    strict: also keep going until Verified."""
    checks: list[CheckSettings] = Field(default_factory=list)
    """Checks added to discovery; layers merge them by id."""
    auto_checks: list[str] = Field(default_factory=list)
    """Check ids auto and strict run; empty means the checks selected for the changed files."""
    max_continuations: int = Field(default=3, ge=0, le=20)
    """How many times auto/strict send failures back to the model in one turn."""

    @field_validator("checks")
    @classmethod
    def _unique_ids(cls, checks: list[CheckSettings]) -> list[CheckSettings]:
        seen: set[str] = set()
        for check in checks:
            if check.id in seen:
                raise ValueError(f"check id {check.id!r} appears twice in this file")
            seen.add(check.id)
        return checks


class SandboxSettings(StrictModel):
    """``[shell.sandbox]``: the fenced workshop for Bash, background shells and checks."""

    enabled: bool = False
    """Run agent commands inside bubblewrap (Linux) or seatbelt (macOS)."""
    allow_network: bool = False
    """false: no connections except localhost (on Linux, not even that)."""
    auto_allow: bool = False
    """Run a command that would ask without asking when all it writes stays in writable areas."""
    extra_writable: list[str] = Field(default_factory=list)
    """More writable folders; layers combine these lists."""


class ShellSettings(StrictModel):
    """How the agent's shell commands run."""

    program: str | None = None
    """Shell for Bash commands; default ``$SHELL``, else ``/bin/bash``."""
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    """See ``[shell.sandbox]``."""
