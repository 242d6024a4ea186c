"""Rust: ``Cargo.toml`` packages and workspaces (test, build, clippy, fmt --check)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zengine_jupyter.verify.discovery._project import ProjectView, make_check

if TYPE_CHECKING:
    from zengine_jupyter.protocol import CheckSpec

__all__ = ["discover"]


def discover(project: ProjectView) -> list[CheckSpec]:
    checks: list[CheckSpec] = []
    roots: list[str] = []
    for folder in project.folders:
        if not folder.has("Cargo.toml") or any(folder.is_inside(r) for r in roots):
            continue  # a workspace member (or nested crate) is covered by the one above
        manifest = folder.read_toml("Cargo.toml")
        if manifest is None or not ({"workspace", "package"} & manifest.keys()):
            continue
        roots.append(folder.rel)
        scope = ["--workspace"] if "workspace" in manifest else []
        fmt = ["--all"] if scope else []
        checks += [
            make_check("cargo", "test", "test", ["cargo", "test", *scope], folder, "cargo"),
            make_check("cargo", "build", "build", ["cargo", "build", *scope], folder),
            make_check(
                "cargo",
                "clippy",
                "lint",
                ["cargo", "clippy", *scope, "--", "-D", "warnings"],
                folder,
            ),
            make_check("cargo", "fmt", "format", ["cargo", "fmt", *fmt, "--check"], folder),
        ]
    return checks
