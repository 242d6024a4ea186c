"""Built-in specs and routing: one spec per server, user entries first, first installed wins."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from zengine_jupyter.integrations.lsp import BUILTIN_SPECS, LspRouter, LspServerEntry


def _which(installed: set[str]) -> Callable[[str, str], str | None]:
    return lambda cmd, _path: f"/opt/bin/{cmd}" if cmd in installed else None


ALL = {s.command for s in BUILTIN_SPECS}


@pytest.mark.parametrize(
    ("file", "server", "language"),
    [
        ("src/lib.rs", "rust-analyzer", "rust"),
        ("web/app.ts", "typescript-language-server", "typescript"),
        ("web/App.TSX", "typescript-language-server", "typescriptreact"),
        ("web/app.js", "typescript-language-server", "javascript"),
        ("pkg/mod.py", "basedpyright", "python"),
        ("stubs/mod.pyi", "basedpyright", "python"),
        ("cmd/main.go", "gopls", "go"),
        ("native/x.c", "clangd", "c"),
        ("native/x.cpp", "clangd", "cpp"),
    ],
)
def test_each_builtin_serves_its_file_types(file: str, server: str, language: str) -> None:
    route = LspRouter(which=_which(ALL)).route(Path(file))
    assert route is not None
    assert route.spec.name == server
    assert route.program == f"/opt/bin/{route.spec.command}"
    assert route.spec.language_id(Path(file).suffix) == language


def test_basedpyright_is_preferred_and_pyright_used_when_it_is_the_only_one() -> None:
    both = LspRouter(which=_which({"basedpyright-langserver", "pyright-langserver"}))
    assert both.route("a.py").spec.name == "basedpyright"  # type: ignore[union-attr]
    only = LspRouter(which=_which({"pyright-langserver"}))
    assert only.route("a.py").spec.name == "pyright"  # type: ignore[union-attr]


def test_nothing_installed_routes_to_the_preferred_spec_with_its_install_command() -> None:
    route = LspRouter(which=_which(set())).route("a.py")
    assert route is not None
    assert route.program is None
    assert route.spec.name == "basedpyright"
    assert route.spec.install == "pip install basedpyright"


def test_unknown_file_types_have_no_server() -> None:
    router = LspRouter(which=_which(ALL))
    assert router.route("notes.txt") is None
    assert router.route("Makefile") is None


def test_a_user_entry_wins_over_builtins_for_its_file_types() -> None:
    entry = LspServerEntry(
        "pylsp", "pylsp", args=("-v",), file_types=("py", ".PYI"),
        initialization_options={"x": 1},
    )  # fmt: skip
    router = LspRouter([entry], which=_which({*ALL, "pylsp"}))
    route = router.route("a.py")
    assert route is not None
    assert route.spec.name == "pylsp"
    assert route.spec.argv == ("pylsp", "-v")
    assert route.spec.file_types == (".py", ".pyi")
    assert route.spec.language_id(".py") == "py"
    assert route.spec.initialization_options == {"x": 1}
    assert not route.spec.builtin
    # a user entry that is not installed falls back to an installed built-in
    fallback = LspRouter([entry], which=_which(ALL)).route("a.py")
    assert fallback is not None
    assert fallback.spec.name == "basedpyright"


def test_every_builtin_names_an_install_command_and_unique_name() -> None:
    names = [s.name for s in BUILTIN_SPECS]
    assert len(names) == len(set(names))
    assert {"rust-analyzer", "typescript-language-server", "basedpyright", "pyright",
            "gopls", "clangd"} <= set(names)  # fmt: skip
    for spec in BUILTIN_SPECS:
        assert spec.install
        assert all(t.startswith(".") and t == t.lower() for t in spec.file_types)


def test_servers_get_their_toolchain_variables_and_entry_env_only() -> None:
    gopls = next(s for s in BUILTIN_SPECS if s.name == "gopls")
    source = {"GOPATH": "/go", "AWS_SECRET_ACCESS_KEY": "nope", "PATH": "/bin"}
    assert gopls.environment(source) == {"GOPATH": "/go"}
    entry = LspServerEntry("mine", "mine", file_types=("x",), env={"MINE_LOG": "1"})
    route = LspRouter([entry], which=_which({"mine"})).route("a.x")
    assert route is not None
    assert route.spec.environment(source) == {"MINE_LOG": "1"}
