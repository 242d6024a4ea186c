"""A project laid out for sandbox tests: a git repository, a second project, a fake home with a
secret and a cache, a private temp folder and a file outside every writable area."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from zengine_jupyter.host import RunOptions, run
from zengine_jupyter.host.sandbox import (
    CommandOrigin,
    SandboxOptions,
    detect_backend,
    plan_shell,
    run_planned,
)

if TYPE_CHECKING:
    from pathlib import Path

    from zengine_jupyter.host import CompletedRun

__all__ = ["SandboxLayout", "make_sandbox_layout", "run_in_layout"]

SECRET = "api_key = not-a-real-key\n"
OUTSIDE = "outside, must stay as it is\n"


@dataclass(frozen=True)
class SandboxLayout:
    base: Path
    project: Path
    """A git repository with ``.z-engine/settings.toml``; no ``.claude/`` and no ``.mcp.json``."""
    second: Path
    """An additional directory: no repository, ``.claude/settings.json`` and ``.mcp.json``."""
    husky: Path
    """An additional repository whose config sets ``core.hooksPath = .husky/_`` and includes
    ``../shared.gitconfig``; neither exists yet."""
    home: Path
    temp: Path
    outside: Path

    def options(self, *, allow_network: bool = False) -> SandboxOptions:
        return SandboxOptions(
            root=self.project,
            temp_dir=self.temp,
            home=self.home,
            enabled=True,
            allow_network=allow_network,
            auto_allow=True,
            additional_directories=(self.second, self.husky),
        )

    def env(self) -> dict[str, str]:
        """Environment for commands run in the layout (its home, its temp folder)."""
        return {"HOME": str(self.home), "TMPDIR": str(self.temp)}


async def make_sandbox_layout(base: Path) -> SandboxLayout:
    """Create the layout under ``base`` (needs git)."""
    project, second, husky, home, temp = (
        base / n for n in ("project", "second", "husky", "home", "tmp")
    )
    for folder in (project / ".z-engine", second / ".claude", home / ".cache", temp):
        folder.mkdir(parents=True)
    (project / ".z-engine" / "settings.toml").write_text("[shell.sandbox]\nenabled = true\n")
    (project / "data.csv").write_text("a,b\n1,2\n")
    (second / ".claude" / "settings.json").write_text("{}\n")
    (second / ".mcp.json").write_text('{"mcpServers": {}}\n')
    (home / "secret.txt").write_text(SECRET)
    outside = base / "outside.txt"
    outside.write_text(OUTSIDE)
    (project / "planted-link").symlink_to(outside)
    env = {"HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"}
    for argv in (
        ["git", "init", "-q", str(project)],
        ["git", "init", "-q", str(husky)],
        ["git", "-C", str(husky), "config", "core.hooksPath", ".husky/_"],
        ["git", "-C", str(husky), "config", "include.path", "../shared.gitconfig"],
    ):
        done = await run(argv, RunOptions(env=env))
        if not done.ok:
            raise RuntimeError(done.stderr.decode())
    return SandboxLayout(base, project, second, husky, home, temp, outside)


async def run_in_layout(
    layout: SandboxLayout,
    script: str,
    origin: CommandOrigin = CommandOrigin.AGENT_BASH,
    *,
    timeout_s: float = 60.0,
    stdin: bytes | None = None,
) -> CompletedRun:
    """``bash -c SCRIPT`` from ``origin`` in the layout's project, planned and run as the engine
    does (``plan_shell`` + ``run_planned``); it must run sandboxed."""
    backend = await detect_backend()
    plan = plan_shell(layout.options(), backend, origin, script, layout.project)
    if not plan.sandboxed:
        raise AssertionError(f"not sandboxed: {plan.notice}")
    options = RunOptions(env=layout.env(), timeout_s=timeout_s, stdin=stdin)
    return await run_planned(plan, options)
