"""``%load_ext zengine`` against importing the widget stack alone, each in a fresh interpreter.

Both sides start a new Python with an IPython shell and time only the step itself, so
interpreter start-up is not counted.
"""

from __future__ import annotations

import subprocess
import sys

from benchmarks._harness import Benchmark

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


def benchmarks() -> list[Benchmark]:
    return [
        Benchmark(
            "load_ext vs import ipywidgets+anywidget",
            ours=lambda: _in_fresh_python(_OURS),
            baseline=lambda: _in_fresh_python(_BASELINE),
            repeat=5,
            max_ratio=1.5,
        )
    ]
