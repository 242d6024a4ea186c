"""Which language servers exist: the built-in specs and the user's ``[lsp.servers]`` entries.

Adding a built-in server is one :class:`LspServerSpec` in :data:`BUILTIN_SPECS` plus a test.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["BUILTIN_SPECS", "LspServerEntry", "LspServerSpec", "spec_from_entry"]


@dataclass(frozen=True)
class LspServerSpec:
    """How to start one language server and which files it serves."""

    name: str
    command: str
    """The program, looked up on PATH (and beside the running Python)."""
    args: tuple[str, ...]
    file_types: tuple[str, ...]
    """File extensions with the dot, lower case: ``(".py", ".pyi")``."""
    language_ids: Mapping[str, str]
    """Extension -> LSP ``languageId``; extensions not listed use ``default_language_id``."""
    default_language_id: str
    install: str | None = None
    """The command that installs it, shown when it is missing."""
    initialization_options: Mapping[str, Any] | None = None
    builtin: bool = True
    inherit_env: tuple[str, ...] = ()
    """Variables passed through from our environment when set (the default allowlist has
    no toolchain variables such as GOPATH or CARGO_HOME)."""
    env: Mapping[str, str] = field(default_factory=dict)
    """Set for the server (a user entry's ``env``)."""
    typescript: Literal["native", "tsserver"] | None = None
    """A TypeScript server, chosen by the ``tsc`` the project resolves (``_typescript.py``):
    ``native`` serves only on TypeScript 7 or later (its ``command`` is that ``tsc``),
    ``tsserver`` only on an older one (TypeScript 7 has no tsserver)."""

    def environment(self, source: Mapping[str, str]) -> dict[str, str]:
        """What to add to the allowlisted environment for this server."""
        extra = {name: source[name] for name in self.inherit_env if name in source}
        extra.update(self.env)
        return extra

    @property
    def argv(self) -> tuple[str, ...]:
        return (self.command, *self.args)

    def language_id(self, extension: str) -> str:
        return self.language_ids.get(extension.lower(), self.default_language_id)


@dataclass(frozen=True)
class LspServerEntry:
    """One ``[lsp.servers.<name>]`` entry of the settings (the settings part builds these)."""

    name: str
    command: str
    args: tuple[str, ...] = ()
    file_types: tuple[str, ...] = ()
    """Extensions (``".py"`` or ``"py"``) the server is used for; they win over built-ins."""
    initialization_options: Mapping[str, Any] | None = None
    language_id: str | None = None
    """The ``languageId`` sent with opened files; defaults to the first file type's name."""
    install: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)


def spec_from_entry(entry: LspServerEntry) -> LspServerSpec:
    """The spec for a user entry (extensions normalised to ``.ext``)."""
    types = tuple(t.lower() if t.startswith(".") else f".{t.lower()}" for t in entry.file_types)
    language = entry.language_id or (types[0].lstrip(".") if types else "plaintext")
    return LspServerSpec(
        name=entry.name,
        command=entry.command,
        args=tuple(entry.args),
        file_types=types,
        language_ids={},
        default_language_id=language,
        install=entry.install,
        initialization_options=entry.initialization_options,
        builtin=False,
        env=dict(entry.env),
    )


_PIP = "pip install"
_TS_TYPES = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
_TS_LANGUAGES = {
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "typescriptreact",
    ".jsx": "javascriptreact",
}
BUILTIN_SPECS: tuple[LspServerSpec, ...] = (
    LspServerSpec(
        name="rust-analyzer",
        command="rust-analyzer",
        args=(),
        file_types=(".rs",),
        language_ids={},
        default_language_id="rust",
        install="rustup component add rust-analyzer",
        inherit_env=("CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN"),
    ),
    LspServerSpec(  # TypeScript 7 or later: tsc is its own language server
        name="tsc",
        command="tsc",
        args=("--lsp", "--stdio"),
        file_types=_TS_TYPES,
        language_ids=_TS_LANGUAGES,
        default_language_id="javascript",
        install="npm install -g typescript",
        inherit_env=("NODE_PATH", "NODE_OPTIONS"),
        typescript="native",
    ),
    LspServerSpec(  # TypeScript before 7 (tsserver)
        name="typescript-language-server",
        command="typescript-language-server",
        args=("--stdio",),
        file_types=_TS_TYPES,
        language_ids=_TS_LANGUAGES,
        default_language_id="javascript",
        install="npm install -g typescript-language-server typescript@5",
        inherit_env=("NODE_PATH", "NODE_OPTIONS"),
        typescript="tsserver",
    ),
    LspServerSpec(
        name="basedpyright",
        command="basedpyright-langserver",
        args=("--stdio",),
        file_types=(".py", ".pyi"),
        language_ids={},
        default_language_id="python",
        install=f"{_PIP} basedpyright",
        inherit_env=("PYTHONPATH",),
    ),
    LspServerSpec(  # used when basedpyright is not installed but pyright is
        name="pyright",
        command="pyright-langserver",
        args=("--stdio",),
        file_types=(".py", ".pyi"),
        language_ids={},
        default_language_id="python",
        install=f"{_PIP} pyright",
        inherit_env=("PYTHONPATH",),
    ),
    LspServerSpec(
        name="gopls",
        command="gopls",
        args=(),
        file_types=(".go",),
        language_ids={},
        default_language_id="go",
        install="go install golang.org/x/tools/gopls@latest",
        inherit_env=(
            "GOPATH",
            "GOROOT",
            "GOFLAGS",
            "GOPROXY",
            "GOCACHE",
            "GOMODCACHE",
            "GOTOOLCHAIN",
        ),
    ),
    LspServerSpec(
        name="clangd",
        command="clangd",
        args=(),
        file_types=(".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx"),
        language_ids={".c": "c", ".h": "c"},
        default_language_id="cpp",
        install="apt-get install -y clangd",
    ),
)
"""Built-in servers in order of preference: for a file type served by several (basedpyright,
pyright), the first installed one is used; of the two TypeScript servers the project's
``tsc`` version picks one (``tsc`` on 7 or later, typescript-language-server before)."""
