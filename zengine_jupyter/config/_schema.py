"""The settings schema: every key of ``settings.toml``, its type, default and meaning.

docs/settings.md is generated from these models (``zengine settings --reference``), so a field's
docstring is its documentation.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Literal

from pydantic import Field, field_validator

from zengine_jupyter.config._modes import PERMISSION_MODES, PermissionMode, is_permission_mode
from zengine_jupyter.config._rules import PermissionRule
from zengine_jupyter.config._schema_tools import (
    HooksSettings,
    LspSettings,
    McpSettings,
    ShellSettings,
    StrictModel,
    VerificationSettings,
)

__all__ = [
    "PERMISSION_MODES",
    "AgentsSettings",
    "AppearanceSettings",
    "CheckpointsSettings",
    "ContextSettings",
    "DecisionsSettings",
    "KernelSettings",
    "ModelSettings",
    "PermissionMode",
    "PermissionsSettings",
    "PriceSettings",
    "ProviderSettings",
    "Settings",
    "WebSettings",
    "is_permission_mode",
]


def _http_url(value: str | None) -> str | None:
    if value is not None and not re.match(r"^https?://[^\s/]+", value):
        # the value is left out: a URL can carry a token
        raise ValueError("must be an http:// or https:// URL")
    return value


class ModelSettings(StrictModel):
    """Which models run which role."""

    main: str | None = None
    """Model id of the main agent; unset: the provider's default."""
    fast: str | None = None
    """Titles, compaction summaries, web-page questions, explore and verify agents; default main."""
    review: str | None = None
    """The review agent; default main."""
    fallbacks: list[str] = Field(default_factory=list)
    """Tried in order, same provider and key, when a request fails before any text arrived."""
    effort: Literal["low", "medium", "high", "max"] | None = None
    """How much a reasoning model thinks first; unset: the model's default."""


class ProviderSettings(StrictModel):
    """Where requests (and your code) are sent."""

    kind: Literal["auto", "anthropic", "openai", "replay"] = "auto"
    """Wire format; auto: Anthropic for anthropic.com hosts, OpenAI-compatible otherwise;
    replay: always play provider.cassette back (no model is called)."""
    base_url: str | None = None
    """API endpoint; unset: the provider's public endpoint."""
    cassette: str | None = None
    """A recorded session (JSONL) played back when no key and no base_url are set (kind auto);
    relative to the kernel's working directory."""
    record: str | None = None
    """Also write the live provider's answers to this cassette (set by zengine cassette record)."""
    ollama_port: int = Field(default=11434, ge=1, le=65535)
    """Port on localhost where the setup view looks for Ollama (GET /api/tags)."""
    lmstudio_port: int = Field(default=1234, ge=1, le=65535)
    """Port on localhost where the setup view looks for LM Studio (GET /v1/models)."""

    _check_url = field_validator("base_url")(_http_url)


class PermissionsSettings(StrictModel):
    """The permission gate: mode and rules (``Tool`` or ``Tool(specifier)``)."""

    mode: PermissionMode = "default"
    """default: ask before edits and commands; accept_edits: edits in the project run;
    plan: read-only; bypass: everything runs unless a deny or ask rule matches. In every mode,
    writes to protected paths (.git, .z-engine, .claude, .mcp.json, your startup files) and
    outside the project ask."""
    allow: list[str] = Field(default_factory=list)
    """Calls that run without asking (Bash(npm test:*), Edit(src/**): * stays in one folder,
    ** crosses folders); layers combine these lists."""
    ask: list[str] = Field(default_factory=list)
    """Calls that always ask, even when allowed or in bypass; layers combine these lists."""
    deny: list[str] = Field(default_factory=list)
    """Calls that never run; deny wins over everything; layers combine these lists."""
    additional_directories: list[str] = Field(default_factory=list)
    """Folders outside the project the agent may read and edit; layers combine these lists."""
    auto_allow_read_only_bash: bool = False
    """Run Bash commands known to only read (ls, cat, git status, ...) without asking."""
    allow_bypass: bool = True
    """Offer bypass mode (the panel's mode picker, /mode bypass); false: a chat never switches
    to it (an untrusted project may turn it off, never on)."""

    @field_validator("allow", "ask", "deny")
    @classmethod
    def _rules_parse(cls, rules: list[str]) -> list[str]:
        for rule in rules:
            PermissionRule.parse(rule)
        return rules


class WebSettings(StrictModel):
    """The WebFetch and WebSearch tools."""

    enabled: bool = True
    """Give the agent web tools at all."""
    allowed_domains: list[str] = Field(default_factory=list)
    """If set, only these domains (and their subdomains) are fetched."""
    blocked_domains: list[str] = Field(default_factory=list)
    """Never fetched."""
    timeout_s: float = Field(default=30.0, gt=0, le=300)
    """Seconds before a fetch gives up."""


class DecisionsSettings(StrictModel):
    """The decision model: an optional second opinion on approvals, and its sidecar program."""

    enabled: bool = False
    """Ask the decision model before showing an approval."""
    model: str | None = None
    """Model id it uses; default model.fast."""
    sidecar: list[str] = Field(default_factory=list)
    """Optional argv of a local program that answers instead of a model."""
    timeout_s: float = Field(default=20.0, gt=0, le=300)
    """Seconds before an unanswered decision falls back to asking you."""


class ContextSettings(StrictModel):
    """What goes into the model's context and when it is compacted."""

    auto_compact: bool = True
    """Summarise older turns when the context is nearly full."""
    compact_threshold: float = Field(default=0.85, ge=0.5, le=0.95)
    """Fraction of the context window at which compaction starts."""
    instruction_files: list[str] = Field(default_factory=lambda: ["AGENTS.md", "CLAUDE.md"])
    """Project files read into the system prompt when present (paths inside the project)."""

    @field_validator("instruction_files")
    @classmethod
    def _inside_project(cls, files: list[str]) -> list[str]:
        # An untrusted project may set this: it must not pull ~/.ssh/id_rsa into the prompt.
        for name in files:
            parts = PurePosixPath(name.replace("\\", "/")).parts
            if not parts or name.startswith(("/", "~")) or ".." in parts or ":" in name:
                raise ValueError(f"{name!r} must be a path inside the project")
        return files


class AppearanceSettings(StrictModel):
    """How the chat looks."""

    theme: Literal["auto", "light", "dark"] = "auto"
    """auto follows JupyterLab's theme."""
    show_cost: bool = True
    """Show cost in turn footers."""
    show_thinking: bool = False
    """Show the model's thinking text expanded."""


class AgentsSettings(StrictModel):
    """Limits for a chat and its subagents."""

    session_cost_cap_usd: float | None = Field(default=None, gt=0)
    """Stop a chat once it has spent this many US dollars; unset: no cap."""


class KernelSettings(StrictModel):
    """The agent's RunCell tool: code it runs in the notebook's kernel (it always asks, except
    under an allow rule or bypass; plan mode never runs it). A project may lower these
    limits, not raise them."""

    run_cell_timeout_s: float = Field(default=120.0, gt=0, le=86_400)
    """Seconds a run may take when the call names none; then ``KeyboardInterrupt`` is raised
    in the running code and the result says so."""
    run_cell_max_timeout_s: float = Field(default=600.0, gt=0, le=86_400)
    """The longest timeout one call may ask for (a longer one is cut to this)."""
    output_chars: int = Field(default=20_000, ge=1_000, le=500_000)
    """Characters of text the model reads from one run (stdout, stderr, outputs, the last
    expression, the traceback): the middle of a longer text is left out, and the result
    says how much."""
    image_max_bytes: int = Field(default=1_000_000, ge=10_000, le=5_000_000)
    """Largest image (PNG/JPEG bytes) sent to the model; a bigger one is named, not sent."""
    max_images: int = Field(default=4, ge=0, le=20)
    """Images one run sends at most (to models that take images); the rest are counted."""


class CheckpointsSettings(StrictModel):
    """Retention of the snapshots rewind restores (one shadow repository per project, in the
    data folder); applied when a chat opens, after each turn that took one, and by
    ``zengine checkpoints gc``. The newest snapshot is always kept."""

    max_age_days: int = Field(default=30, ge=1, le=3650)
    """Snapshots older than this many days are removed (rewinding to them then says so)."""
    max_size_mb: int = Field(default=2048, ge=16)
    """Size budget of one project's checkpoints in MiB; past it the oldest snapshots go."""


class PriceSettings(StrictModel):
    """``[pricing."MODEL-ID"]``: USD per 1M tokens; beats the catalog and built-in table."""

    input: float = Field(ge=0)
    """Uncached input tokens."""
    output: float = Field(ge=0)
    """Output tokens (thinking included)."""
    cache_read: float | None = Field(default=None, ge=0)
    """Input tokens read from the prompt cache; unset: the catalog's figure, else input."""
    cache_write: float | None = Field(default=None, ge=0)
    """Input tokens written to the prompt cache; unset: the catalog's figure, else input."""


class Settings(StrictModel):
    """The whole of one ``settings.toml`` (every table optional) and the effective result."""

    model: ModelSettings = Field(default_factory=ModelSettings)
    """``[model]``"""
    provider: ProviderSettings = Field(default_factory=ProviderSettings)
    """``[provider]``"""
    permissions: PermissionsSettings = Field(default_factory=PermissionsSettings)
    """``[permissions]``"""
    hooks: HooksSettings = Field(default_factory=HooksSettings)
    """``[[hooks.EVENT]]``"""
    mcp: McpSettings = Field(default_factory=McpSettings)
    """``[mcp.servers.NAME]``"""
    lsp: LspSettings = Field(default_factory=LspSettings)
    """``[lsp.servers.NAME]``"""
    verification: VerificationSettings = Field(default_factory=VerificationSettings)
    """``[verification]``"""
    shell: ShellSettings = Field(default_factory=ShellSettings)
    """``[shell]``"""
    web: WebSettings = Field(default_factory=WebSettings)
    """``[web]``"""
    decisions: DecisionsSettings = Field(default_factory=DecisionsSettings)
    """``[decisions]``"""
    context: ContextSettings = Field(default_factory=ContextSettings)
    """``[context]``"""
    appearance: AppearanceSettings = Field(default_factory=AppearanceSettings)
    """``[appearance]``"""
    agents: AgentsSettings = Field(default_factory=AgentsSettings)
    """``[agents]``"""
    checkpoints: CheckpointsSettings = Field(default_factory=CheckpointsSettings)
    """``[checkpoints]``"""
    kernel: KernelSettings = Field(default_factory=KernelSettings)
    """``[kernel]``"""
    pricing: dict[str, PriceSettings] = Field(default_factory=dict)
    """``[pricing."MODEL-ID"]``; an entry in a higher layer replaces one for the same model."""
