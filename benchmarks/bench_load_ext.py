"""``%load_ext zengine``: against importing the widget stack alone, and against the anchor.

Row 1: a fresh Python with an IPython shell each time, timing only the step itself (interpreter
start-up is not counted), against ``import ipywidgets, anywidget``.

Rows 2 and 3 (issue 12, acceptance 6): ``%load_ext zengine`` against
``%load_ext jupyter_ai_magics``, each in a fresh kernel of the same environment,
``.venv-anchor`` (see ``benchmarks/_anchor.py``: jupyter-ai-magics is installed there only).
Time, and the RSS the step added. Limits: ours at most half of theirs, and under 300 ms.
Each kernel run gives both figures. Without ``.venv-anchor`` (it needs PyPI once) those two
rows are skipped with the reason.
"""

from __future__ import annotations

import subprocess
import sys

from benchmarks._anchor import ANCHOR_REQUIREMENT, anchor_python, load_ext_figures
from benchmarks._harness import Benchmark
from benchmarks._runs import Runs

_SHELL = (
    "import time, os\n"
    "os.environ.setdefault('JUPYTER_PLATFORM_DIRS', '1')\n"
    "from IPython.core.interactiveshell import InteractiveShell\n"
    "from IPython.utils.capture import capture_output\n"
    "ip = InteractiveShell.instance()\n"
)
_OURS = _SHELL + (
    "t = time.perf_counter()\n"
    "with capture_output():\n"
    "    ip.run_line_magic('load_ext', 'zengine')\n"
    "print(time.perf_counter() - t)\n"
)
_BASELINE = _SHELL + (
    "t = time.perf_counter()\nimport ipywidgets, anywidget\nprint(time.perf_counter() - t)\n"
)


def _in_fresh_python(code: str) -> float:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    return float(done.stdout.strip().splitlines()[-1])


def _anchor_rows() -> list[Benchmark]:
    python, why = anchor_python()
    if python is None:
        sys.stderr.write(f"skipped: %load_ext zengine vs jupyter_ai_magics: {why}\n")
        return []
    ours = Runs(lambda: load_ext_figures(python, "zengine"))
    theirs = Runs(lambda: load_ext_figures(python, "jupyter_ai_magics"))
    vs = f"%load_ext jupyter_ai_magics ({ANCHOR_REQUIREMENT.split('==')[1]})"
    return [
        Benchmark(f"fresh kernel: %load_ext zengine time vs {vs}", ours.sample("s"),
                  theirs.sample("s"), repeat=5, max_ratio=0.5, max_ours=0.300),
        Benchmark(f"fresh kernel: %load_ext zengine added RSS vs {vs}", ours.sample("bytes"),
                  theirs.sample("bytes"), repeat=5, max_ratio=0.5, unit="bytes"),
    ]  # fmt: skip


def benchmarks() -> list[Benchmark]:
    return [
        Benchmark(
            "load_ext vs import ipywidgets+anywidget",
            ours=lambda: _in_fresh_python(_OURS),
            baseline=lambda: _in_fresh_python(_BASELINE),
            repeat=5,
            max_ratio=1.5,
        ),
        *_anchor_rows(),
    ]
