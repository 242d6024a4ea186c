"""The notebooks check: ``python -m zengine_jupyter.verify.notebooks NB.ipynb ...``.

Runs each notebook top to bottom in a fresh kernel (nbclient), from the notebook's own
folder, without saving anything. Prints one line per notebook and, last, the totals
``notebooks: P passed, F failed`` that the notebooks parser reads. Exit status 1 when any
notebook failed. nbclient is imported only here, in the check's own process.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["main", "run_notebook"]


def run_notebook(path: Path, *, timeout_s: int, kernel: str | None) -> tuple[bool, str]:
    """Execute one notebook; ``(passed, detail)``."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    try:
        notebook = nbformat.read(path, as_version=4)
    except (OSError, ValueError) as exc:
        return False, f"cannot read it: {exc}"
    client = NotebookClient(
        notebook, timeout=timeout_s, resources={"metadata": {"path": str(path.parent)}}
    )
    if kernel:
        client.kernel_name = kernel
    code_cells = sum(1 for cell in notebook.cells if cell.cell_type == "code")
    try:
        client.execute()
    except CellExecutionError as exc:
        return False, _last_line(str(exc))
    except Exception as exc:  # the kernel died, timed out or is not installed
        return False, f"{type(exc).__name__}: {_last_line(str(exc))}"
    return True, f"{code_cells} code cells"


_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _last_line(text: str) -> str:
    lines = [line for line in _ANSI.sub("", text).strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else "failed"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m zengine_jupyter.verify.notebooks",
        description="Run notebooks top to bottom in a fresh kernel each.",
    )
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    parser.add_argument("--kernel", default=None, help="kernel name (default: each notebook's)")
    args = parser.parse_args(argv)
    passed = failed = 0
    for path in args.notebooks:
        start = time.perf_counter()
        ok, detail = run_notebook(path, timeout_s=args.timeout, kernel=args.kernel)
        took = time.perf_counter() - start
        sys.stdout.write(f"{'PASS' if ok else 'FAIL'} {path} ({took:.1f} s): {detail}\n")
        sys.stdout.flush()
        passed += ok
        failed += not ok
    sys.stdout.write(f"notebooks: {passed} passed, {failed} failed\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
