"""Run benchmarks and print ``name  ours  baseline  ratio`` rows."""

from __future__ import annotations

import importlib
import pkgutil
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Benchmark", "Row", "discover", "main", "measure", "render"]

Sample = Callable[[], float | None]
"""One measured run. Return the seconds it measured itself (e.g. inside a subprocess),
or ``None`` to be timed from the outside."""


@dataclass(frozen=True)
class Benchmark:
    name: str
    ours: Sample
    baseline: Sample
    repeat: int = 7
    max_ratio: float | None = None
    """The least we accept (from the issue); a ratio above it fails the run."""


@dataclass(frozen=True)
class Row:
    name: str
    ours_s: float
    baseline_s: float
    max_ratio: float | None

    @property
    def ratio(self) -> float:
        return self.ours_s / self.baseline_s if self.baseline_s > 0 else float("inf")

    @property
    def ok(self) -> bool:
        return self.max_ratio is None or self.ratio <= self.max_ratio


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
    return Row(bench.name, statistics.median(ours), statistics.median(base), bench.max_ratio)


def _fmt(seconds: float) -> str:
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
        limit = "-" if r.max_ratio is None else f"<= {r.max_ratio:g} {'ok' if r.ok else 'OVER'}"
        lines.append(
            f"{r.name:<{width}}  {_fmt(r.ours_s):>10}  {_fmt(r.baseline_s):>10}"
            f"  {r.ratio:>7.2f}  {limit}"
        )
    return "\n".join(lines)


def discover(package: str = "benchmarks") -> dict[str, str]:
    """Benchmark module names by short name: ``bench_load_ext.py`` -> ``load_ext``."""
    path = Path(importlib.import_module(package).__file__ or "").parent
    return {
        info.name.removeprefix("bench_"): f"{package}.{info.name}"
        for info in pkgutil.iter_modules([str(path)])
        if info.name.startswith("bench_")
    }


def main(argv: Sequence[str] | None = None, package: str = "benchmarks") -> int:
    """Run the named benchmark modules (all when none are named); 1 if a ratio is over its limit."""
    names = list(sys.argv[1:] if argv is None else argv)
    available = discover(package)
    unknown = [n for n in names if n not in available]
    if unknown:
        sys.stderr.write(f"unknown benchmark(s) {unknown}; available: {sorted(available)}\n")
        return 2
    rows: list[Row] = []
    for name in names or sorted(available):
        module = importlib.import_module(available[name])
        for bench in module.benchmarks():
            rows.append(measure(bench))
            sys.stdout.write(render(rows[-1:]).splitlines()[1] + "\n")
            sys.stdout.flush()
    sys.stdout.write("\n" + render(rows) + "\n")
    return 0 if all(r.ok for r in rows) else 1
