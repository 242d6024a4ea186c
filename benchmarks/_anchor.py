"""The anchor's environment and a fresh-kernel ``%load_ext`` measurement.

The anchor is jupyter-ai-magics, whose ``%load_ext jupyter_ai_magics`` is what a notebook user
of the best-known alternative pays. It is installed **only** into ``.venv-anchor`` (gitignored,
next to ``.venv``), never into the project's own environment: the benchmark creates it on first
use with the base interpreter's ``venv`` and pip from PyPI, holding this package (editable) plus
``jupyter-ai-magics`` at the version the baselines note measured, with ipykernel and IPython
pinned to the versions ``.venv`` has. Both sides are then measured in the same environment, in
a fresh kernel each time, so only the extension differs. A stamp file remembers what was
installed; a change of requirements (or of pyproject.toml) rebuilds it. When it cannot be
created (no network, no pip), :func:`anchor_python` returns the reason and the rows that need it
are skipped with that message. ``ZENGINE_ANCHOR_VENV`` puts it elsewhere (e.g. a CI cache).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING

from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager

from zengine_jupyter.testing.kernel import KernelHarness

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["ANCHOR_REQUIREMENT", "anchor_python", "anchor_venv", "load_ext_figures"]

REPO = Path(__file__).resolve().parents[1]
ANCHOR_REQUIREMENT = "jupyter-ai-magics==2.31.7"
_STAMP = ".zengine-anchor"
_INSTALL_TIMEOUT_S = 900

_MEASURE = """
import gc, os, time
def _zrss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
gc.collect()
_zr, _zt = _zrss(), time.perf_counter()
get_ipython().run_line_magic("load_ext", %r)
_zt = time.perf_counter() - _zt
gc.collect()
print("\\nZBENCH", _zt, _zrss() - _zr)
"""


def _requirements() -> list[str]:
    return [
        "-e",
        str(REPO),
        ANCHOR_REQUIREMENT,
        f"ipykernel=={version('ipykernel')}",
        f"ipython=={version('ipython')}",
    ]


def _wanted_stamp() -> str:
    pyproject = hashlib.sha256((REPO / "pyproject.toml").read_bytes()).hexdigest()
    return json.dumps({"requirements": _requirements(), "pyproject": pyproject})


def anchor_venv() -> Path:
    """Where the anchor's environment lives: ``$ZENGINE_ANCHOR_VENV`` or ``.venv-anchor``."""
    return Path(os.environ.get("ZENGINE_ANCHOR_VENV") or REPO / ".venv-anchor")


def anchor_python() -> tuple[Path | None, str]:
    """The anchor venv's interpreter (created if needed), or None and why it cannot be had."""
    venv = anchor_venv()
    python = venv / "bin" / "python"
    stamp = venv / _STAMP
    wanted = _wanted_stamp()
    if python.exists() and stamp.exists() and stamp.read_text() == wanted:
        return python, "cached"
    if venv.exists() and any(venv.iterdir()) and not (venv / "pyvenv.cfg").exists():
        return None, f"{venv} exists and is not a virtual environment: not replacing it"
    shutil.rmtree(venv, ignore_errors=True)
    base = getattr(sys, "_base_executable", sys.executable)
    sys.stderr.write(f"creating {venv} ({ANCHOR_REQUIREMENT}; a few minutes, once)\n")
    steps = (
        [base, "-m", "venv", str(venv)],
        [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
         *_requirements()],
    )  # fmt: skip
    for argv in steps:
        try:
            subprocess.run(argv, check=True, capture_output=True, text=True,
                           timeout=_INSTALL_TIMEOUT_S, cwd=REPO)  # fmt: skip
        except (OSError, subprocess.SubprocessError) as exc:
            shutil.rmtree(venv, ignore_errors=True)
            output = getattr(exc, "stderr", None) or str(exc)
            lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
            errors = [ln for ln in lines if ln.startswith("ERROR:")]
            last = (errors or [ln for ln in lines if not ln.startswith("WARNING:")])[-2:]
            return None, (
                f"could not create {venv} ({' '.join(argv[:4])} ...: "
                f"{' | '.join(last)}); it needs PyPI once, then it is cached"
            )
    stamp.write_text(wanted)
    return python, "created"


@contextlib.contextmanager
def _fresh_kernel(python: Path, cwd: Path, env: dict[str, str]) -> Iterator[KernelHarness]:
    """A new kernel of ``python`` (its own kernelspec in a temporary folder)."""
    with tempfile.TemporaryDirectory() as specs:
        spec_dir = Path(specs) / "zengine-bench"
        spec_dir.mkdir()
        argv = [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"]
        (spec_dir / "kernel.json").write_text(
            json.dumps({"argv": argv, "display_name": "bench", "language": "python"})
        )
        spec_manager = KernelSpecManager(kernel_dirs=[specs])
        manager = KernelManager(kernel_name="zengine-bench", kernel_spec_manager=spec_manager)
        manager.start_kernel(cwd=str(cwd), env=env)
        harness = KernelHarness(manager)
        try:
            harness.client.start_channels()
            harness.client.wait_for_ready(timeout=60)
            yield harness
        finally:
            harness.client.stop_channels()
            manager.shutdown_kernel(now=True)
            manager.cleanup_resources()


def load_ext_figures(python: Path, extension: str) -> dict[str, float]:
    """``%load_ext extension`` in a fresh kernel: its seconds and the bytes of RSS it added."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "ZENGINE_HOME": str(Path(tmp) / "home"),
               "JUPYTER_PLATFORM_DIRS": "1"}  # fmt: skip
        with _fresh_kernel(python, Path(tmp), env) as kernel:
            done = kernel.execute(_MEASURE % extension, timeout=120)
    found = re.findall(r"^ZBENCH (\S+) (\S+)$", done.text, re.MULTILINE)
    if done.status != "ok" or not found:
        raise RuntimeError(f"%load_ext {extension} failed in the benchmark kernel:\n{done.text}")
    seconds, added = found[-1]
    return {"s": float(seconds), "bytes": float(added)}
