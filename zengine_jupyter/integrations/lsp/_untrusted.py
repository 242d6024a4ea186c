"""Language servers in an untrusted project: the ones known to run the project's code start
in a safe configuration, or not at all.

- **typescript-language-server** loads the TypeScript it finds in the workspace
  (``node_modules/typescript/lib/tsserver.js``, searched upward from the project) and any
  tsserver plugins it is given. Safe mode: ``tsserver.path`` is the TypeScript installed
  beside the server program (Node's own lookup from the program's real location, as the
  server's bundled fallback does; never inside the project), ``plugins`` is empty (no
  ``--globalPlugins`` / ``--pluginProbeLocations``), automatic type acquisition is off and
  ``npmLocation`` is dropped. A project's tsconfig ``plugins`` are then looked up only beside
  that TypeScript (tsserver never loads them from the project without
  ``--allowLocalPluginLoads``, which nothing passes). No TypeScript of the user's own, or a
  program inside the project: not started.
- **tsc --lsp** (TypeScript 7 or later) has no plugins; the ``tsc`` it runs is never the
  project's own (``_typescript.py`` skips one inside the project), and automatic type
  acquisition (an npm install of the project's ``@types``) is asked to stay off.
- **rust-analyzer** runs ``build.rs`` and proc-macros (both can be switched off), but also
  ``cargo metadata``, which runs the ``rustc`` / ``rustc-wrapper`` a project's
  ``.cargo/config.toml`` names, under the toolchain its ``rust-toolchain.toml`` names (rustup
  runs that toolchain's binaries). No initialization option switches those off, so it is not
  started until the folder is trusted.

Servers are recognised by their program's name, so an ``[lsp.servers]`` entry of the
user's that runs the same program is guarded the same way. A server started through a
package runner (``npx``, ``pnpm``, ``yarn``, ``bunx`` ...) is not started: from the project's
folder the runner prefers the project's own ``node_modules/.bin``. Others (basedpyright,
pyright, gopls, clangd, ...) start as usual.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from zengine_jupyter.integrations.lsp._spec import LspServerSpec

__all__ = ["Guarded", "guard_untrusted", "user_tsserver"]

_TRUST = "trust the folder (/trust) to use it"
_RUNNERS = frozenset({"npx", "pnpx", "bunx", "npm", "pnpm", "yarn", "bun"})
"""Package runners: with the project as working folder they prefer its node_modules/.bin."""


@dataclass(frozen=True)
class Guarded:
    """How a server starts in an untrusted project: ``spec`` (safe) or not at all (None)."""

    spec: LspServerSpec | None
    note: str
    """For ``/lsp`` and the LSP tool's error: which, and why."""


def guard_untrusted(spec: LspServerSpec, program: str, root: Path) -> Guarded | None:
    """The safe launch of ``spec`` in the untrusted project ``root``; ``None``: the server
    runs none of the project's code and starts as usual. Touches the file system (a few
    ``stat`` calls)."""
    runner = Path(spec.command).name
    if runner in _RUNNERS:
        return Guarded(
            None,
            f"not started: untrusted project, and {runner} runs programs from the project's "
            f"own node_modules first; {_TRUST}",
        )
    guard = _GUARDS.get(runner) or _GUARDS.get(Path(program).name)
    return guard(spec, program, root.resolve()) if guard else None


def _typescript(spec: LspServerSpec, program: str, root: Path) -> Guarded:
    real = Path(program).resolve()
    if real.is_relative_to(root):
        return Guarded(None, f"not started: untrusted project, and {real} is inside it; {_TRUST}")
    tsserver = user_tsserver(real, root)
    if tsserver is None:
        return Guarded(
            None,
            "not started: untrusted project, and no TypeScript of your own was found beside "
            f"{real} (the project's node_modules/typescript is never used); install it there "
            f"(npm install -g typescript) or {_TRUST}",
        )
    options: dict[str, Any] = dict(spec.initialization_options or {})
    server = {k: v for k, v in dict(options.get("tsserver") or {}).items() if k != "fallbackPath"}
    options.pop("npmLocation", None)
    options |= {
        "tsserver": server | {"path": str(tsserver)},
        "plugins": [],
        "disableAutomaticTypingAcquisition": True,
    }
    note = (
        "safe mode (untrusted project: the project's node_modules/typescript and tsserver "
        f"plugins are ignored; TypeScript from {tsserver.parent.parent})"
    )
    return Guarded(replace(spec, initialization_options=options), note)


def user_tsserver(program: Path, root: Path) -> Path | None:
    """``typescript/lib/tsserver.js`` as Node resolves ``typescript`` from ``program``'s
    folder (each ancestor's ``node_modules``), outside ``root`` and with a version."""
    for folder in (program.parent, *program.parent.parents):
        if folder.name == "node_modules":
            continue
        candidate = folder / "node_modules" / "typescript"
        tsserver = candidate / "lib" / "tsserver.js"
        if not tsserver.is_file():
            continue
        real = tsserver.resolve()
        if real.is_relative_to(root) or not _has_version(real.parent.parent / "package.json"):
            continue
        return real
    return None


def _has_version(package: Path) -> bool:
    try:
        return bool(json.loads(package.read_text("utf-8")).get("version"))
    except (OSError, ValueError, AttributeError):
        return False


def _rust_analyzer(spec: LspServerSpec, program: str, root: Path) -> Guarded:
    return Guarded(
        None,
        "not started: untrusted project (rust-analyzer runs the project's build scripts and "
        "proc-macros, and cargo runs the programs its .cargo/config.toml and "
        f"rust-toolchain.toml name); {_TRUST}",
    )


def _tsc(spec: LspServerSpec, program: str, root: Path) -> Guarded:
    real = Path(program).resolve()
    if real.is_relative_to(root):
        return Guarded(None, f"not started: untrusted project, and {real} is inside it; {_TRUST}")
    options: dict[str, Any] = dict(spec.initialization_options or {})
    # both spellings tsc 7 reads: the raw preference and the "js/ts" section it asks for
    off = {"tsserver": {"automaticTypeAcquisition": {"enabled": False}}}
    options |= {"disableAutomaticTypeAcquisition": True, "js/ts": off}
    note = (
        "safe mode (untrusted project: the project's node_modules/typescript is ignored, "
        f"automatic type acquisition is off; {real})"
    )
    return Guarded(replace(spec, initialization_options=options), note)


_GUARDS: dict[str, Callable[[LspServerSpec, str, Path], Guarded]] = {
    "tsc": _tsc,
    "typescript-language-server": _typescript,
    "rust-analyzer": _rust_analyzer,
}
