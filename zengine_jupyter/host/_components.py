"""Which external programs are installed: git, bubblewrap, node, chromium."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from zengine_jupyter.host._process import RunOptions, run
from zengine_jupyter.host._search_path import which
from zengine_jupyter.protocol import ComponentStatus, ProcessError

__all__ = ["COMPONENTS", "ComponentSpec", "probe_component", "probe_components"]


@dataclass(frozen=True)
class ComponentSpec:
    """An external program and how to find, version and install it."""

    name: str
    executables: tuple[str, ...]
    version_args: tuple[str, ...]
    purpose: str
    install: str


COMPONENTS: tuple[ComponentSpec, ...] = (
    ComponentSpec(
        "git", ("git",), ("--version",), "checkpoints and rewind", "apt-get install -y git"
    ),
    ComponentSpec(
        "bwrap",
        ("bwrap",),
        ("--version",),
        "the sandbox on Linux",
        "apt-get install -y bubblewrap",
    ),
    ComponentSpec(
        "node",
        ("node", "nodejs"),
        ("--version",),
        "building the JupyterLab panel, npm MCP servers",
        "apt-get install -y nodejs npm",
    ),
    ComponentSpec(
        "chromium",
        ("chromium", "chromium-browser"),
        ("--version",),
        "browser tests of the JupyterLab panel",
        "apt-get install -y chromium",
    ),
)


async def probe_component(spec: ComponentSpec) -> ComponentStatus:
    """Find ``spec`` on PATH and ask it for its version (a missing one is reported, not raised)."""
    path = next((p for p in map(which, spec.executables) if p), None)
    version: str | None = None
    if path is not None:
        try:
            done = await run([path, *spec.version_args], RunOptions(timeout_s=20))
        except ProcessError:
            path = None
        else:
            lines = done.text().strip().splitlines()
            version = lines[0].strip() if done.ok and lines else None
            if not done.ok:
                path = None
    return ComponentStatus(
        name=spec.name,
        purpose=spec.purpose,
        available=path is not None,
        path=path,
        version=version,
        install=spec.install,
    )


async def probe_components(
    specs: tuple[ComponentSpec, ...] = COMPONENTS,
) -> list[ComponentStatus]:
    """Probe every component concurrently."""
    async with asyncio.TaskGroup() as group:
        tasks = [group.create_task(probe_component(spec)) for spec in specs]
    return [task.result() for task in tasks]
