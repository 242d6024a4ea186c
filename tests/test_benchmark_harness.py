"""The benchmark harness: discovery, interleaved medians, the table and the limit check."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from benchmarks import Benchmark, Row, discover, main, measure, render

REPO = Path(__file__).resolve().parents[1]


def test_measure_takes_the_median_of_self_measured_samples() -> None:
    ours = iter([9.0, 3.0, 1.0, 2.0, 50.0, 4.0])  # warm-up 9.0, then 3,1,2,50,4 -> median 3
    row = measure(Benchmark("x", ours=lambda: next(ours), baseline=lambda: 1.5, repeat=5))
    assert row.ours_s == 3.0
    assert row.baseline_s == 1.5
    assert row.ratio == 2.0


def test_samples_that_return_none_are_timed_from_outside() -> None:
    calls: list[str] = []
    row = measure(
        Benchmark(
            "timed",
            ours=lambda: calls.append("ours"),
            baseline=lambda: calls.append("base"),
            repeat=3,
        )
    )
    assert calls == ["ours", "base"] * 4  # warm-up, then interleaved
    assert row.ours_s > 0
    assert row.baseline_s > 0


def test_render_marks_rows_over_their_limit() -> None:
    table = render(
        [Row("fast", 1.0, 2.0, 1.1), Row("slow", 3.0, 1.0, 1.5), Row("free", 1, 1, None)]
    )
    lines = table.splitlines()
    assert lines[0].split() == ["name", "ours", "baseline", "ratio", "limit"]
    assert lines[1].split()[-3:] == ["<=", "1.1", "ok"]
    assert "0.50" in lines[1]
    assert lines[2].split()[-3:] == ["<=", "1.5", "OVER"]
    assert "3.00" in lines[2]
    assert lines[3].endswith("-")


def _fake_package(tmp_path: Path, ours: float) -> str:
    name = f"fakebench_{int(ours * 10)}"
    pkg = tmp_path / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "bench_const.py").write_text(
        textwrap.dedent(
            f"""
            from benchmarks import Benchmark
            def benchmarks():
                return [Benchmark("const", ours=lambda: {ours}, baseline=lambda: 2.0,
                                  repeat=3, max_ratio=1.5)]
            """
        )
    )
    (pkg / "helper.py").write_text("")
    return name


def test_main_runs_discovered_modules_and_fails_over_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    package = _fake_package(tmp_path, ours=2.0)
    assert discover(package) == {"const": f"{package}.bench_const"}
    assert main(["const"], package=package) == 0
    assert "1.00  <= 1.5 ok" in capsys.readouterr().out
    assert main(["nope"], package=package) == 2


def test_main_exit_code_is_one_when_a_ratio_is_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    package = _fake_package(tmp_path, ours=4.0)
    assert main([], package=package) == 1
    assert "2.00  <= 1.5 OVER" in capsys.readouterr().out


def test_each_module_runs_in_an_interpreter_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """What one module leaves running or alive must not weigh on the next one's rows."""
    monkeypatch.syspath_prepend(str(tmp_path))
    package = _fake_package(tmp_path, ours=3.0)  # a package name no other test imported
    pids = tmp_path / "pids"
    for name in ("a", "b"):
        (tmp_path / package / f"bench_{name}.py").write_text(
            textwrap.dedent(
                f"""
                import os
                from benchmarks import Benchmark
                def benchmarks():
                    with open({str(pids)!r}, "a") as fh:
                        fh.write(f"{{os.getpid()}}\\n")
                    return [Benchmark("{name}", ours=lambda: 1.0, baseline=lambda: 2.0)]
                """
            )
        )
    assert main([], package=package) == 0
    seen = pids.read_text().split()
    assert len(seen) == 2
    assert len(set(seen)) == 2
    assert str(os.getpid()) not in seen
    out = capsys.readouterr().out
    assert out.count("0.50  -") == 4  # a's and b's rows as they came, then the table
    assert "1.50  <= 1.5 ok" in out  # the const module's row came back too


def test_every_real_benchmark_module_is_discovered_and_well_formed() -> None:
    found = discover()
    assert "load_ext" in found
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "no-such-bench"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "load_ext" in done.stderr


def test_an_absolute_ceiling_and_a_unit_show_in_the_limit_column() -> None:
    rows = [
        Row("time", 0.016, 0.7, 0.5, max_ours=0.3),
        Row("slow", 0.4, 1.0, 0.5, max_ours=0.3),
        Row("rss", 0.8 * 2**20, 52 * 2**20, 0.5, unit="bytes"),
    ]
    assert [r.ok for r in rows] == [True, False, True]
    lines = render(rows).splitlines()
    assert lines[1].endswith("<= 0.5 ok, ours <= 300.0 ms ok")
    assert lines[2].endswith("<= 0.5 ok, ours <= 300.0 ms OVER")  # within the ratio, not the cap
    assert "0.8 MiB" in lines[3]
    assert "52.0 MiB" in lines[3]


def test_runs_measure_once_for_every_row_that_reads_them() -> None:
    from benchmarks._runs import Runs

    made: list[int] = []

    def run() -> dict[str, float]:
        made.append(len(made))
        return {"s": float(len(made)), "bytes": 10.0 * len(made)}

    runs, base = Runs(run), Runs(lambda: {"s": 1.0, "bytes": 1.0})
    time_row = measure(Benchmark("t", runs.sample("s"), base.sample("s"), repeat=3))
    rss_row = measure(Benchmark("m", runs.sample("bytes"), base.sample("bytes"), repeat=3))
    again = measure(Benchmark("t2", runs.sample("s", "again"), base.sample("s", "x"), repeat=3))
    assert made == [0, 1, 2, 3]  # one warm-up and three runs, shared by the three rows
    assert (time_row.ours_s, rss_row.ours_s, again.ours_s) == (3.0, 30.0, 3.0)


@pytest.mark.slow
def test_the_anchor_rows_skip_with_the_reason_when_pypi_cannot_be_reached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from benchmarks.bench_load_ext import _anchor_rows

    venv = tmp_path / "anchor"
    monkeypatch.setenv("ZENGINE_ANCHOR_VENV", str(venv))
    dead = "http://127.0.0.1:9/simple"  # nothing listens on the discard port
    for name, value in (
        ("PIP_INDEX_URL", dead),
        ("PIP_EXTRA_INDEX_URL", dead),
        ("PIP_FIND_LINKS", str(tmp_path / "none")),
        ("PIP_RETRIES", "0"),
    ):
        monkeypatch.setenv(name, value)  # fmt: skip
    assert _anchor_rows() == []
    err = capsys.readouterr().err
    assert f"skipped: %load_ext zengine vs jupyter_ai_magics: could not create {venv}" in err
    assert "No matching distribution" in err
    assert "it needs PyPI once" in err
    assert not venv.exists()  # no half-made environment is left to be taken for a cached one


def test_the_anchor_never_replaces_a_folder_that_is_not_a_venv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from benchmarks._anchor import anchor_python

    (tmp_path / "notes.txt").write_text("mine")
    monkeypatch.setenv("ZENGINE_ANCHOR_VENV", str(tmp_path))
    python, why = anchor_python()
    assert python is None
    assert why == f"{tmp_path} exists and is not a virtual environment: not replacing it"
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_a_cost_over_the_baseline_is_a_limit_too() -> None:
    rows = [
        Row("sandbox", 0.0095, 0.0020, None, max_over=0.008),
        Row("slow sandbox", 0.0220, 0.0020, None, max_over=0.008),
        Row("both", 0.0050, 0.0010, 4.0, max_over=0.008),
    ]
    assert [r.ok for r in rows] == [True, False, False]  # the last is within +8 ms, not 4x
    lines = render(rows).splitlines()
    assert lines[1].endswith("+7.5 ms over baseline <= +8.0 ms ok")
    assert lines[2].endswith("+20.0 ms over baseline <= +8.0 ms OVER")
    assert lines[3].endswith("<= 4 OVER, +4.0 ms over baseline <= +8.0 ms ok")


def test_pairs_interleave_and_keep_each_side_s_least_figure() -> None:
    """One sample alternates which side goes first and keeps each side's least: wall time, or
    with ``measured`` the figure each run returns (CPU seconds)."""
    from benchmarks._pairs import Pairs

    order: list[str] = []
    ours_figures = iter([0.5, 0.2, 0.4])
    base_figures = iter([0.9, 0.7, 0.8])

    def ours() -> float:
        order.append("ours")
        return next(ours_figures)

    def base() -> float:
        order.append("base")
        return next(base_figures)

    pairs = Pairs(ours, base, 3, measured=True)
    assert pairs.ours() == 0.2
    assert pairs.theirs() == 0.7
    assert order == ["ours", "base", "base", "ours", "ours", "base"]
    walled = Pairs(lambda: 5.0, lambda: 5.0, 2)  # figures ignored: wall time, far below 5 s
    assert walled.ours() < 1.0
    assert walled.theirs() < 1.0
