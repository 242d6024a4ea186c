"""Run benchmarks and print ``name  ours  baseline  ratio`` rows.

With more than one module, each runs in an interpreter of its own: what one leaves running
(an MCP server, a language server, a kernel, threads) or alive (a heap the cycle collector
walks on every full pass) would otherwise weigh on the modules after it. In one process the
last module's fingerprint row measured 1.35x where the same module alone measured 1.21x.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

__all__ = ["Benchmark", "Row", "discover", "main", "measure", "render"]

Unit = Literal["s", "bytes"]
Sample = Callable[[], float | None]
"""One measured run. Return what it measured itself (seconds, e.g. inside a subprocess, or
the benchmark's ``unit``), or ``None`` to be timed from the outside."""


@dataclass(frozen=True)
class Benchmark:
    name: str
    ours: Sample
    baseline: Sample
    repeat: int = 7
    max_ratio: float | None = None
    """The least we accept (from the issue); a ratio above it fails the run."""
    max_ours: float | None = None
    """An absolute ceiling on our median, in ``unit``, where the issue sets one (e.g. "under
    300 ms"); over it fails the run. Benchmarks only: tests never assert an absolute time."""
    unit: Unit = "s"
    """What the samples return: seconds, or bytes (e.g. memory a step added)."""
    max_over: float | None = None
    """The most ours may add to the baseline, in ``unit``, where the issue sets the limit as
    a cost on top (e.g. "at most +8 ms over bare"); over it fails the run. Both are measured
    in the same run, so this is still a comparison, not an absolute time."""


@dataclass(frozen=True)
class Row:
    name: str
    ours_s: float
    baseline_s: float
    max_ratio: float | None
    max_ours: float | None = None
    unit: Unit = "s"
    max_over: float | None = None

    @property
    def over(self) -> float:
        """What ours adds to the baseline."""
        return self.ours_s - self.baseline_s

    @property
    def ratio(self) -> float:
        return self.ours_s / self.baseline_s if self.baseline_s > 0 else float("inf")

    @property
    def ok(self) -> bool:
        within_ratio = self.max_ratio is None or self.ratio <= self.max_ratio
        within_over = self.max_over is None or self.over <= self.max_over
        within = within_ratio and within_over
        return within and (self.max_ours is None or self.ours_s <= self.max_ours)


def _time(sample: Sample) -> float:
    start = time.perf_counter()
    measured = sample()
    return measured if measured is not None else time.perf_counter() - start


def measure(bench: Benchmark) -> Row:
    """Median of ``repeat`` interleaved runs of ours and the baseline (after one warm-up each)."""
    _time(bench.ours)
    _time(bench.baseline)
    ours: list[float] = []
    base: list[float] = []
    for _ in range(bench.repeat):
        ours.append(_time(bench.ours))
        base.append(_time(bench.baseline))
    return Row(
        bench.name,
        statistics.median(ours),
        statistics.median(base),
        bench.max_ratio,
        bench.max_ours,
        bench.unit,
        bench.max_over,
    )


def _fmt(value: float, unit: Unit = "s") -> str:
    if unit == "bytes":
        return f"{value / 2**20:.1f} MiB" if abs(value) >= 2**17 else f"{value / 2**10:.0f} KiB"
    seconds = value
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds * 1e6:.0f} us"


def render(rows: Sequence[Row]) -> str:
    """The table: one row per benchmark, and whether its ratio is within the accepted limit."""
    width = max([len("name"), *(len(r.name) for r in rows)])
    lines = [f"{'name':<{width}}  {'ours':>10}  {'baseline':>10}  {'ratio':>7}  limit"]
    for r in rows:
        lines.append(
            f"{r.name:<{width}}  {_fmt(r.ours_s, r.unit):>10}  {_fmt(r.baseline_s, r.unit):>10}"
            f"  {r.ratio:>7.2f}  {_limit(r)}"
        )
    return "\n".join(lines)


def _limit(row: Row) -> str:
    """``<= 0.5 ok``, ``ours <= 300.0 ms OVER``, ``+13.2 ms over bare <= +8.0 ms OVER``, some
    of them, or ``-``."""
    parts = []
    if row.max_ratio is not None:
        within = row.ratio <= row.max_ratio
        parts.append(f"<= {row.max_ratio:g} {'ok' if within else 'OVER'}")
    if row.max_ours is not None:
        within = row.ours_s <= row.max_ours
        parts.append(f"ours <= {_fmt(row.max_ours, row.unit)} {'ok' if within else 'OVER'}")
    if row.max_over is not None:
        within = row.over <= row.max_over
        sign = "+" if row.over >= 0 else "-"
        added = f"{sign}{_fmt(abs(row.over), row.unit)} over baseline"
        parts.append(f"{added} <= +{_fmt(row.max_over, row.unit)} {'ok' if within else 'OVER'}")
    return ", ".join(parts) or "-"


def discover(package: str = "benchmarks") -> dict[str, str]:
    """Benchmark module names by short name: ``bench_load_ext.py`` -> ``load_ext``."""
    path = Path(importlib.import_module(package).__file__ or "").parent
    return {
        info.name.removeprefix("bench_"): f"{package}.{info.name}"
        for info in pkgutil.iter_modules([str(path)])
        if info.name.startswith("bench_")
    }


def main(argv: Sequence[str] | None = None, package: str = "benchmarks") -> int:
    """Run the named benchmark modules (all when none are named); 1 if a row is over its limit.

    ``--rows-to FILE`` (first): run here and write the rows to ``FILE`` as JSON (how each
    module's own interpreter reports back)."""
    names = list(sys.argv[1:] if argv is None else argv)
    if names[:1] == ["scaling"]:  # the growth curves, not rows (benchmarks/_scaling.py)
        from benchmarks._scaling import main as scaling

        return scaling(names[1:])
    rows_to = None
    if names[:1] == ["--rows-to"]:
        rows_to, names = Path(names[1]), names[2:]
    available = discover(package)
    unknown = [n for n in names if n not in available]
    if unknown:
        sys.stderr.write(f"unknown benchmark(s) {unknown}; available: {sorted(available)}\n")
        return 2
    chosen = names or sorted(available)
    if rows_to is None and len(chosen) > 1:
        rows, failed = _run_apart(chosen, package)
    else:
        rows, failed = _run_here([available[name] for name in chosen]), []
    if rows_to is not None:
        rows_to.write_text(json.dumps([asdict(r) for r in rows]))
    else:
        sys.stdout.write("\n" + render(rows) + "\n")
    for name in failed:
        sys.stdout.write(f"benchmark module {name!r} failed: see its output above\n")
    return 0 if all(r.ok for r in rows) and not failed else 1


def _run_here(modules: list[str]) -> list[Row]:
    rows: list[Row] = []
    for module_name in modules:
        module = importlib.import_module(module_name)
        for bench in module.benchmarks():
            rows.append(measure(bench))
            sys.stdout.write(render(rows[-1:]).splitlines()[1] + "\n")
            sys.stdout.flush()
    return rows


_CHILD = (
    "import sys; from benchmarks._harness import main; sys.exit(main(sys.argv[2:], sys.argv[1]))"
)


def _run_apart(names: list[str], package: str) -> tuple[list[Row], list[str]]:
    """Each module in a fresh interpreter (this one's import path), its rows read back; the
    names of the modules that ended without rows."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    rows: list[Row] = []
    failed: list[str] = []
    with tempfile.TemporaryDirectory(prefix="zengine-bench-rows-") as tmp:
        for name in names:
            out = Path(tmp, f"{name}.json")
            argv = [sys.executable, "-c", _CHILD, package, "--rows-to", str(out), name]
            with subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=env) as child:
                assert child.stdout is not None
                for line in child.stdout:  # its rows as they come
                    sys.stdout.write(line)
                    sys.stdout.flush()
            if child.returncode not in (0, 1) or not out.exists():
                failed.append(name)
                continue
            rows += [Row(**row) for row in json.loads(out.read_text())]
    return rows, failed
