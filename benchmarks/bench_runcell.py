"""RunCell's headless overhead (issue 23): the same code run by the headless executor vs run
as a plain cell, both timed inside one real kernel.

Ours: ``HeadlessExecutor.run`` (transform, capture stdout/stderr/display, the watchdog thread
and SIGINT handler, the shell state saved and put back, the last value described for the
model). Baseline: ``shell.run_cell_async`` of the same code, as the kernel runs a cell without
history (its output goes to the benchmark's cell as usual). The code: an assignment (row 1,
the fixed cost), a print and a small
DataFrame as the last expression (row 2), and a matplotlib plot shown as a PNG (row 3), where
the figure's rendering dominates both. Only ratios compare (the machine is shared).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import tempfile
from pathlib import Path

from benchmarks._harness import Benchmark
from zengine_jupyter.testing.kernel import KernelHarness, running_kernel

_FRAME = (
    "import pandas as pd\nprint('rows', 3)\n"
    "_zf = pd.DataFrame({'rate': [1.5, 2.5, 3.5], 'n': [1, 2, 3]})\n_zf.describe()"
)
_TINY = "y = 1 + 1"
_PLOT = "import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.show()"
_SETUP = """
import time
from IPython import get_ipython
from zengine_jupyter.kernel._headless import HeadlessExecutor
_zx = HeadlessExecutor(get_ipython)
async def _zours(code):
    t = time.perf_counter()
    await _zx.run(code, timeout_s=60)
    print("\\nZBENCH", time.perf_counter() - t)
async def _zbase(code):
    shell = get_ipython()
    t = time.perf_counter()
    cell = shell.transform_cell(code)
    await shell.run_cell_async(code, store_history=False, transformed_cell=cell)
    print("\\nZBENCH", time.perf_counter() - t)
"""


class _Rig:
    def __init__(self) -> None:
        self.stack = contextlib.ExitStack()
        tmp = Path(self.stack.enter_context(tempfile.TemporaryDirectory()))
        os.environ["ZENGINE_HOME"] = str(tmp)
        self.kernel: KernelHarness = self.stack.enter_context(running_kernel(tmp))
        self.kernel.execute(_SETUP)
        atexit.register(self.stack.close)

    def seconds(self, runner: str, code: str) -> float:
        out = self.kernel.execute(f"await {runner}({code!r})").text
        return float(out.rsplit("ZBENCH", 1)[1].split()[0])


_rig: _Rig | None = None


def _sample(runner: str, code: str) -> float:
    global _rig
    if _rig is None:
        _rig = _Rig()
    return _rig.seconds(runner, code)


def benchmarks() -> list[Benchmark]:
    os.environ.setdefault("JUPYTER_PLATFORM_DIRS", "1")
    return [
        Benchmark("RunCell headless vs a plain cell: y = 1 + 1 (the fixed cost)",
                  lambda: _sample("_zours", _TINY), lambda: _sample("_zbase", _TINY),
                  repeat=15),
        Benchmark("RunCell headless vs a plain cell: print + DataFrame.describe()",
                  lambda: _sample("_zours", _FRAME), lambda: _sample("_zbase", _FRAME),
                  repeat=9),
        Benchmark("RunCell headless vs a plain cell: a matplotlib plot (PNG)",
                  lambda: _sample("_zours", _PLOT), lambda: _sample("_zbase", _PLOT),
                  repeat=5),
    ]  # fmt: skip
