"""RunCell through the notebook: the frontend's :class:`~zengine_jupyter.engine.CellExecutor`.

When a page has this kernel's own notebook open, the code is inserted there as a visible cell
marked as the agent's and executed through the notebook's normal execution
(``NotebookActions.runCells`` in ``labextension/src/live.ts``): its output renders in the
notebook, the user can stop it with the usual interrupt button, and the page interrupts the
kernel at the time bound. The cell's outputs come back in the ``doc_answer`` and are reduced
here to a :class:`~zengine_jupyter.protocol.CellRunResult` (``where="notebook"``), as the
headless path reduces its outputs (``_cell_output.py``). The last expression's value is in
this very kernel (``Out[n]``), so a DataFrame, Series or array is described by the object
(shape, dtypes, first rows), as headless, not by its HTML table.

Not while a ``--wait`` (or nbclient) cell holds the kernel: the notebook could not run the new
cell until that cell ends, which waits for the turn, which waits for the cell. Then, and when
no page has the notebook open, the headless executor runs the code
(:func:`notebook_executor` returns None and the caller uses its own).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from zengine_jupyter.kernel._cell_output import describe_value, reduce_bundle

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from zengine_jupyter.kernel._controller import KernelController
    from zengine_jupyter.kernel._live_docs import LiveRegistry
    from zengine_jupyter.protocol import CellImage, CellRunResult

__all__ = ["NotebookExecutor", "notebook_executor", "result_from_cell"]

ANSWER_MARGIN_S = 30.0
"""How much longer than the run's bound the kernel waits for the page's answer."""
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def notebook_executor(
    controller: KernelController, turn_id: str | None = None
) -> NotebookExecutor | None:
    """The notebook's executor when a page has this kernel's notebook open and no blocking
    cell holds the kernel (``turn_id``: the turn whose review lists the cell); None: run
    headless."""
    from zengine_jupyter.kernel._status import current_status

    notebook = current_status().notebook
    if notebook is None or controller.blocking:
        return None
    if controller.live.state(notebook) == "closed":
        return None
    return NotebookExecutor(controller.live, notebook, lambda: controller.shell, turn_id)


@dataclass
class NotebookExecutor:
    """Runs code as a visible cell of ``notebook`` in the page that has it open."""

    registry: LiveRegistry
    notebook: Path
    shell: Callable[[], Any] | None = None
    """The kernel's shell, whose ``Out`` holds the run's last value (None: text only)."""
    turn_id: str | None = None
    """The turn that runs the code: the page lists its cell in that turn's review."""

    async def run(
        self, code: str, *, timeout_s: float, after_cell_id: str | None = None
    ) -> CellRunResult:
        from zengine_jupyter.protocol import CellError, CellRunResult

        started = time.monotonic()
        answer = await self.registry.ask(
            self.notebook, "run", wait_s=timeout_s + ANSWER_MARGIN_S,
            code=code, timeout_s=timeout_s, after_cell_id=after_cell_id,
            turn_id=self.turn_id,
        )  # fmt: skip
        took = time.monotonic() - started
        if answer is None or not answer.ok or answer.cell is None:
            why = "the notebook closed" if answer is None else (answer.error or "no cell")
            return CellRunResult(where="notebook", duration_s=took,
                                 error=CellError(name="RunCellError", value=why))  # fmt: skip
        value = _last_value(self.shell, answer.cell.get("execution_count"))
        return result_from_cell(answer.cell, timed_out=answer.timed_out, duration_s=took,
                                value=value)  # fmt: skip


def _last_value(shell: Callable[[], Any] | None, count: object) -> str | None:
    """The run's last expression described from the object itself (``Out[count]``)."""
    if shell is None or not isinstance(count, int):
        return None
    out = getattr(shell(), "user_ns", {}).get("Out", {})
    if not isinstance(out, dict) or count not in out:
        return None
    return describe_value(out[count])


def result_from_cell(
    cell: dict[str, Any],
    *,
    timed_out: bool = False,
    duration_s: float = 0.0,
    value: str | None = None,
) -> CellRunResult:
    """A run cell's nbformat outputs as what RunCell reports; ``value``: the last expression
    described from the object (a DataFrame's shape, dtypes and first rows), used instead of
    its text form."""
    from zengine_jupyter.protocol import CellError, CellRunResult

    stdout: list[str] = []
    stderr: list[str] = []
    outputs: list[str] = []
    images: list[CellImage] = []
    result: str | None = None
    error: CellError | None = None
    for output in cell.get("outputs", []):
        kind = output.get("output_type")
        if kind == "stream":
            (stderr if output.get("name") == "stderr" else stdout).append(_text(output["text"]))
        elif kind == "error":
            trace = _ANSI.sub("", "\n".join(output.get("traceback", [])))
            error = CellError(name=output.get("ename", "Error"),
                              value=output.get("evalue", ""), traceback=trace)  # fmt: skip
        elif kind in ("execute_result", "display_data"):
            text, image = reduce_bundle(_joined(output.get("data", {})))
            if image is not None:
                images.append(image)
            elif kind == "execute_result":
                result = value or text
            elif text:
                outputs.append(text)
    interrupted = error is not None and error.name == "KeyboardInterrupt" and not timed_out
    return CellRunResult(
        where="notebook", stdout="".join(stdout), stderr="".join(stderr), error=error,
        result=result, outputs=outputs, images=images, timed_out=timed_out,
        interrupted=interrupted, duration_s=duration_s,
        execution_count=cell.get("execution_count"), cell_id=cell.get("id"),
    )  # fmt: skip


def _text(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def _joined(data: dict[str, Any]) -> dict[str, Any]:
    """A bundle as nbformat may split it (a list of lines per type) with each text whole."""
    return {k: "".join(v) if isinstance(v, list) and k.startswith(("text/", "image/")) else v
            for k, v in data.items()}  # fmt: skip
