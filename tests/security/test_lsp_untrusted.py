"""Attack: a cloned, untrusted project ships its own ``node_modules/typescript`` (or a
``Cargo.toml`` with build scripts and proc-macros); the LSP read tool starts the language
server on it and the server runs the project's code on the host: typescript-language-server
loads the project's ``node_modules/typescript/lib/tsserver.js``; rust-analyzer runs
``build.rs``, proc-macros and cargo (which honours the project's ``.cargo/config.toml`` and
``rust-toolchain.toml``)."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from zengine_jupyter.engine import FixedApprovals, Session, SessionOptions
from zengine_jupyter.integrations.lsp import (
    BUILTIN_SPECS,
    LspManager,
    LspManagerOptions,
    LspQuery,
    LspServerEntry,
    diagnostics_after_write,
    lsp_query,
    spec_from_entry,
)
from zengine_jupyter.integrations.lsp._untrusted import guard_untrusted
from zengine_jupyter.testing import (
    ProviderServer,
    Reply,
    ScriptedToolCall,
    configured_provider,
)
from zengine_jupyter.testing.components import require_component
from zengine_jupyter.testing.lsp import (
    NPM_TOOLS,
    plant_tsserver_plugin,
    require_language_server,
    search_path,
)

FIXTURES = Path(__file__).parents[1] / "fixtures"
_SPECS = {spec.name: spec for spec in BUILTIN_SPECS}


def _plant_typescript(project: Path, marker: Path) -> None:
    """A project-owned TypeScript whose tsserver.js writes ``marker`` when it is loaded."""
    lib = project / "node_modules" / "typescript" / "lib"
    lib.mkdir(parents=True)
    (lib.parent / "package.json").write_text(
        json.dumps({"name": "typescript", "version": "5.9.3", "main": "lib/typescript.js"})
    )
    (lib / "tsserver.js").write_text(
        f"require('fs').writeFileSync({json.dumps(str(marker))}, 'project code ran');\n"
        "process.exit(1);\n"
    )
    (lib / "typescript.js").write_text((lib / "tsserver.js").read_text())
    plant_tsserver_plugin(project, marker)


def _tool_result(server: ProviderServer, index: int) -> str:
    block = server.requests[index].json["messages"][-1]["content"][0]
    content = block["content"]
    return content if isinstance(content, str) else "".join(p["text"] for p in content)


async def test_typescript_server_never_loads_the_projects_typescript(
    tmp_path: Path, zengine_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Attack: an untrusted project's node_modules/typescript/lib/tsserver.js (and a tsserver
    plugin named in its tsconfig.json) runs on the host when the model asks the LSP tool
    about a .ts file. The real typescript-language-server must start in safe mode with the
    user's own TypeScript: the marker is never written, the answer is right, /lsp says so."""
    require_component("node")
    require_language_server(
        "typescript-language-server", "npm install typescript-language-server typescript@5"
    )
    monkeypatch.setenv("PATH", search_path())  # the chat finds the npm test tools
    project = tmp_path / "cloned"
    shutil.copytree(FIXTURES / "lsp_project_ts", project)
    config = json.loads((project / "tsconfig.json").read_text())
    config["compilerOptions"]["plugins"] = [{"name": "evil-plugin"}]
    (project / "tsconfig.json").write_text(json.dumps(config))
    marker = tmp_path / "project-code-ran"
    _plant_typescript(project, marker)
    hover = {"operation": "hover", "path": "main.ts", "line": 8, "column": 10}
    async with configured_provider(zengine_home) as server:
        server.add(
            *(Reply(tool_calls=(ScriptedToolCall("LSP", {"operation": "diagnostics",
                                                        "path": name}),))
              for name in ("main.ts", "shapes.ts")),  # tsserver loads the project first
            Reply(tool_calls=(ScriptedToolCall("LSP", hover),)),
            Reply(text=("done",)),
        )  # fmt: skip
        session = await Session.open(
            SessionOptions(project=project, approvals=FixedApprovals(allow=False))
        )
        try:
            assert not session.settings.trusted
            before = (await session.submit("/lsp")).text
            outcome = await session.submit("what does totalArea return?")
            status = (await session.submit("/lsp")).text
        finally:
            await session.aclose()
    assert outcome.status == "completed", outcome.reason
    assert not marker.exists(), marker.read_text()
    hover_text = _tool_result(server, 3)  # answered by the user's own TypeScript
    assert hover_text.startswith("Hover at main.ts:8:10 (`totalArea`) (typescript-language-server)")
    assert "safe mode" in before
    line = next(x for x in status.splitlines() if x.startswith("typescript-language-server"))
    assert re.search(r"typescript-language-server +ready", line), line
    assert "safe mode (untrusted project: the project's node_modules/typescript and " \
           "tsserver plugins are ignored" in line  # fmt: skip
    assert str(NPM_TOOLS.parent / "typescript") in line  # the user's own TypeScript


async def test_trusted_project_keeps_its_own_typescript(tmp_path: Path) -> None:
    """Trusting the folder gives the project's TypeScript back (the normal editor
    behaviour): the same planted tsserver.js then runs, which proves the untrusted test
    above really exercised that path."""
    require_component("node")
    require_language_server(
        "typescript-language-server", "npm install typescript-language-server typescript@5"
    )
    project = tmp_path / "trusted"
    shutil.copytree(FIXTURES / "lsp_project_ts", project)
    marker = tmp_path / "project-code-ran"
    _plant_typescript(project, marker)
    options = LspManagerOptions(project, search_path=search_path(), init_timeout_s=10)
    async with LspManager(options) as manager:  # trusted (the default)
        await lsp_query(manager, LspQuery("hover", "main.ts", 8, 10))
    assert marker.exists()


def _rust_project(root: Path) -> Path:
    root.mkdir()
    (root / "Cargo.toml").write_text('[package]\nname = "x"\nversion = "0.1.0"\n')
    (root / "build.rs").write_text('fn main() { std::fs::write("/tmp/pwned", "x").unwrap(); }\n')
    return root


def test_rust_analyzer_is_not_started_in_an_untrusted_project(tmp_path: Path) -> None:
    """Attack: rust-analyzer runs build.rs, proc-macros and `cargo metadata` (which runs the
    rustc / rustc-wrapper a project's .cargo/config.toml names, under the toolchain its
    rust-toolchain.toml names). No initializationOptions switch the last two off, so in an
    untrusted project it does not start at all (unit level: rust-analyzer is not installed
    here; the decision and its reason are what is checked)."""
    root = _rust_project(tmp_path / "crate")
    program = str(tmp_path / "bin" / "rust-analyzer")
    guarded = guard_untrusted(_SPECS["rust-analyzer"], program, root)
    assert guarded is not None
    assert guarded.spec is None
    assert "untrusted project" in guarded.note
    assert "build scripts" in guarded.note
    assert "/trust" in guarded.note


async def test_rust_analyzer_refusal_through_the_manager(tmp_path: Path) -> None:
    """The manager never spawns a refused server (a stand-in program that would write a
    marker if run), says why on the call and in /lsp, and starts it once trusted."""
    root = _rust_project(tmp_path / "crate")
    (root / "src").mkdir()
    (root / "src" / "main.rs").write_text("fn main() {}\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    marker = tmp_path / "rust-analyzer-ran"
    fake = bin_dir / "rust-analyzer"
    fake.write_text(f"#!/bin/sh\necho ran > {marker}\nexit 1\n")
    fake.chmod(0o755)
    options = LspManagerOptions(root, search_path=str(bin_dir), trusted=False)
    async with LspManager(options) as manager:
        answer = await lsp_query(manager, LspQuery("hover", "src/main.rs", 1, 4))
        assert not answer.ok
        assert "untrusted project" in answer.text
        row = next(r for r in manager.status() if r.name == "rust-analyzer")
        assert row.state == "not_started"
        assert "untrusted project" in (row.detail or "")
        written = await diagnostics_after_write(manager, root / "src" / "main.rs")
        assert written.outcome == "unavailable"  # not "started": nothing will start
        assert manager.starts("rust-analyzer") == 0
    assert not marker.exists()


def test_typescript_safe_options(tmp_path: Path) -> None:
    """Unit level: the safe launch points tsserver.path at the TypeScript beside the
    program (never inside the project), drops plugins, ATA and npmLocation, and refuses
    a program that lives inside the untrusted project."""
    prefix = tmp_path / "tools" / "node_modules"
    cli = prefix / "typescript-language-server" / "lib" / "cli.mjs"
    cli.parent.mkdir(parents=True)
    cli.write_text("")
    tsserver = prefix / "typescript" / "lib" / "tsserver.js"
    tsserver.parent.mkdir(parents=True)
    tsserver.write_text("")
    (prefix / "typescript" / "package.json").write_text('{"version": "5.9.3"}')
    bin_dir = prefix / ".bin"
    bin_dir.mkdir()
    (bin_dir / "typescript-language-server").symlink_to(cli)
    project = tmp_path / "proj"
    project.mkdir()
    spec = _SPECS["typescript-language-server"]
    user_options: dict[str, Any] = {
        "plugins": [{"name": "x", "location": "/p"}],
        "npmLocation": "/evil/npm",
        "tsserver": {"logVerbosity": "off"},
    }
    guarded = guard_untrusted(
        replace(spec, initialization_options=user_options),
        str(bin_dir / "typescript-language-server"),
        project,
    )
    assert guarded is not None
    assert guarded.spec is not None
    options = dict(guarded.spec.initialization_options or {})
    assert options["tsserver"] == {"logVerbosity": "off", "path": str(tsserver)}
    assert options["plugins"] == []
    assert options["disableAutomaticTypingAcquisition"] is True
    assert "npmLocation" not in options
    assert guarded.spec.argv == ("typescript-language-server", "--stdio")
    # a program inside the project is the project's own code: not started
    inside = project / "node_modules" / ".bin"
    inside.mkdir(parents=True)
    shutil.copy(cli, inside / "typescript-language-server")
    refused = guard_untrusted(spec, str(inside / "typescript-language-server"), project)
    assert refused is not None
    assert refused.spec is None
    # no TypeScript of the user's own: not started either (never the project's)
    lonely = tmp_path / "lonely" / "typescript-language-server"
    lonely.parent.mkdir()
    lonely.write_text("")
    alone = guard_untrusted(spec, str(lonely), project)
    assert alone is not None
    assert alone.spec is None
    assert "no TypeScript" in alone.note
    # servers that run no project code start as usual
    assert guard_untrusted(_SPECS["clangd"], "/usr/bin/clangd", project) is None


def test_package_runner_entries_are_not_started(tmp_path: Path) -> None:
    """Attack: a user's [lsp.servers] entry `npx typescript-language-server --stdio` (or any
    server through npx / pnpm / yarn) resolves the program from the untrusted project's own
    node_modules/.bin first."""
    entry = LspServerEntry("ts-npx", "npx", ("typescript-language-server", "--stdio"), (".ts",))
    guarded = guard_untrusted(spec_from_entry(entry), "/usr/bin/npx", tmp_path)
    assert guarded is not None
    assert guarded.spec is None
    assert "npx runs programs from the project's own node_modules" in guarded.note
