"""Side-by-side benchmarks: ``python -m benchmarks [NAME...]``.

Each ``bench_<name>.py`` module defines ``benchmarks() -> list[Benchmark]``.
Ours and its baseline are measured in the same run, interleaved, and only their
ratio is compared: these machines are too noisy for absolute times.
"""

from benchmarks._harness import Benchmark, Row, discover, main, measure, render

__all__ = ["Benchmark", "Row", "discover", "main", "measure", "render"]
