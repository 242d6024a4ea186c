"""``python -m benchmarks scaling``: how cost grows with the work (issue 25).

Each curve times one public function at a few sizes (median of ``repeat`` runs per size) and
fits ``cost ~ n^k`` by least squares on the logs: ``k`` near 1 is linear, above 1.1 grows
faster than the work and docs/performance.md says why. The paths measured are the ones the
engine runs (store replay, ShadowRepository snapshots, the fingerprint, the MCP catalog and a
request's tool list, the Grep tool), so the curves follow any change to them.

``python -m benchmarks scaling --quick`` runs the small sizes only (a smoke test).
"""

from __future__ import annotations

import asyncio
import math
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Coroutine, Sequence

__all__ = ["Curve", "fit_exponent", "main"]


@dataclass(frozen=True)
class Curve:
    name: str
    sizes: tuple[int, ...]
    seconds: tuple[float, ...]

    @property
    def k(self) -> float:
        return fit_exponent(self.sizes, self.seconds)


def fit_exponent(sizes: Sequence[int], seconds: Sequence[float]) -> float:
    """The least-squares slope of log(seconds) over log(size): cost ~ size^k."""
    xs = [math.log(n) for n in sizes]
    ys = [math.log(max(s, 1e-9)) for s in seconds]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den


def _median(run: Callable[[], float], repeat: int) -> float:
    return statistics.median(run() for _ in range(repeat))


def _timed(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def _run(search: Callable[[Path], Coroutine[Any, Any, None]], root: Path) -> None:
    asyncio.run(search(root))


def _snapshot(repo: Any, label: str) -> float:
    return _timed(lambda: asyncio.run(repo.snapshot(label)))


# ------------------------------------------------------------------ store replay
def _replay(base: Path, sizes: Sequence[int]) -> Curve:
    from benchmarks.bench_store import _records
    from zengine_jupyter.store import SessionStore

    records = _records(max(sizes))
    out = []
    for n in sizes:
        root = base / f"store-{n}"
        with SessionStore(root).create(session_id="s") as writer:
            for record in records[: n - 1]:  # plus the session record: n lines
                writer.append(record)
        repeat = 3 if n <= 100_000 else 1
        out.append(_median(partial(_timed, partial(SessionStore(root).read, "s")), repeat))
        shutil.rmtree(root)
    return Curve("store replay (records)", tuple(sizes), tuple(out))


# ------------------------------------------------------------------ snapshots, fingerprint
def _projects(base: Path, sizes: Sequence[int]) -> dict[int, Path]:
    from benchmarks.bench_checkpoint import _generate

    made = {}
    for n in sizes:
        made[n] = base / f"project-{n}"
        made[n].mkdir()
        _generate(made[n], n)
    return made


def _snapshots(base: Path, projects: dict[int, Path]) -> tuple[Curve, Curve]:
    from zengine_jupyter.host.checkpoint import ShadowRepository

    first, incremental = [], []
    for n, project in projects.items():
        runs_first, runs_incr = [], []
        for run in range(2 if n <= 20_000 else 1):
            home = base / f"shadow-{n}-{run}"
            repo = ShadowRepository(project, home)
            runs_first.append(_snapshot(repo, "first"))
            for i in range(3):
                for j in range(10):
                    path = project / f"pkg{j}" / f"mod{j % 13}" / f"f{j}.py"
                    with path.open("a") as fh:
                        fh.write(f"# edit {run} {i}\n")
                runs_incr.append(_snapshot(repo, "again"))
            shutil.rmtree(home)
        first.append(statistics.median(runs_first))
        incremental.append(statistics.median(runs_incr))
    sizes = tuple(projects)
    return (
        Curve("first snapshot (files)", sizes, tuple(first)),
        Curve("incremental snapshot, 10 changed (files)", sizes, tuple(incremental)),
    )


def _fingerprint(projects: dict[int, Path]) -> Curve:
    from zengine_jupyter.host import fingerprint_tree

    out = []
    for project in projects.values():
        fingerprint_tree(project)  # warm cache, as between two turns
        out.append(_median(partial(_timed, partial(fingerprint_tree, project)), 5))
    return Curve("fingerprint (files)", tuple(projects), tuple(out))


def _grep(projects: dict[int, Path]) -> Curve:
    from zengine_jupyter.engine.tools import GrepTool, ReadTracker, ShellRunner, ToolContext

    async def search(root: Path) -> None:
        shells = ShellRunner(root, root / ".artifacts")
        ctx = ToolContext(
            root=root, artifacts=root / ".artifacts", reads=ReadTracker(), shells=shells
        )
        await GrepTool().call({"pattern": r"column frame d[a-z]ta", "head_limit": 2000}, ctx)
        await shells.aclose()

    out = []
    for project in projects.values():
        asyncio.run(search(project))  # warm cache
        out.append(_median(partial(_timed, partial(_run, search, project)), 3))
    return Curve("Grep (files)", tuple(projects), tuple(out))


# ------------------------------------------------------------------ MCP tools
def _mcp_tools(n: int) -> list[Any]:
    from zengine_jupyter.integrations.mcp import McpTool

    schema = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
        "required": ["path"],
    }
    return [
        McpTool(server=f"s{i % 5}", name=f"tool_{i}", qualified=f"mcp__s{i % 5}__tool_{i}",
                description=f"Tool number {i}: does one thing.\nMore text.", input_schema=schema)
        for i in range(n)
    ]  # fmt: skip


def _mcp(sizes: Sequence[int]) -> tuple[Curve, Curve]:
    from zengine_jupyter.engine._session import _spec
    from zengine_jupyter.engine.mcp._catalog import build_catalog
    from zengine_jupyter.engine.mcp._tools import mcp_tool

    def catalog(tools: list[Any]) -> tuple[dict[str, Any], Any]:
        built = {t.qualified: mcp_tool(t, None, lambda _n: None) for t in tools}  # type: ignore[arg-type]
        return built, build_catalog(tools, frozenset())

    def request(built: dict[str, Any], view: Any) -> None:
        # the MCP share of Session.prepare_request: callable tools' specs and the reminder
        specs = [_spec(t) for name, t in built.items() if name in view.callable]
        specs += [
            d for d in view.definitions if d.name not in view.callable
        ]  # LoadMcpTools when deferring
        assert view.reminder is None or view.reminder

    builds, requests = [], []
    for n in sizes:
        tools = _mcp_tools(n)
        builds.append(_median(partial(_timed, partial(catalog, tools)), 7))
        built, view = catalog(tools)
        requests.append(_median(partial(_timed, partial(request, built, view)), 7))
    return (
        Curve("MCP tool catalog build (tools)", tuple(sizes), tuple(builds)),
        Curve("a request's tool list (MCP tools)", tuple(sizes), tuple(requests)),
    )


# ------------------------------------------------------------------ output
def _fmt(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds * 1e6:.0f} us"


def render(curves: Sequence[Curve]) -> str:
    lines = ["| curve | sizes | times | k |", "|---|---|---|---|"]
    for c in curves:
        sizes = " / ".join(f"{n:,}" for n in c.sizes)
        times = " / ".join(_fmt(s) for s in c.seconds)
        lines.append(f"| {c.name} | {sizes} | {times} | {c.k:.2f} |")
    return "\n".join(lines)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return (
        f"{platform.system()} {platform.release()}, {os.cpu_count()} CPUs ({cpu}), "
        f"Python {platform.python_version()}, load average {load}"
    )


def main(argv: Sequence[str] = ()) -> int:
    quick = "--quick" in argv
    base = Path(tempfile.mkdtemp(prefix="zengine-scaling-"))
    os.environ.setdefault("ZENGINE_HOME", str(base / "home"))
    try:
        records = (1_000, 10_000) if quick else (10_000, 100_000, 1_000_000)
        files = (200, 1_000) if quick else (1_000, 20_000, 50_000)
        grep_files = (200, 1_000) if quick else (1_000, 20_000)
        tools = (10, 100) if quick else (10, 100, 500)
        sys.stdout.write(f"machine: {machine()}\n")
        curves = [_replay(base, records)]
        sys.stdout.write(render(curves[-1:]) + "\n")
        projects = _projects(base, files)
        for curve in (*_snapshots(base, projects), _fingerprint(projects)):
            curves.append(curve)
            sys.stdout.write(render(curves[-1:]).splitlines()[-1] + "\n")
        grepped = {n: p for n, p in projects.items() if n in grep_files}
        curves.append(_grep(grepped))
        curves += _mcp(tools)
        sys.stdout.write(f"\n{render(curves)}\nload average after: {os.getloadavg()}\n")
        return 0
    finally:
        shutil.rmtree(base, ignore_errors=True)
