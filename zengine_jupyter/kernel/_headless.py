"""RunCell without a frontend: the code runs in the kernel's own namespace, output captured.

Which thread, which loop: the code runs on the thread that awaits :meth:`run`, which is the
kernel's main thread (the engine's loop is the kernel's loop; a ``%%agent --wait`` turn runs it
nested inside its cell, a background turn as a task between cells). There the code sees the
user's variables, matplotlib and signals as a cell does. Plain code blocks that loop while it
runs, as a cell does (the turn is waiting for this result anyway); ``await`` at top level yields
to it. :class:`~._deadline.Deadline` stops it at the bound from a watchdog thread, so nothing
on the blocked loop has to fire. Nothing here waits on the loop from inside the loop: no
deadlock in either kind of turn. Before plain code starts, the run yields to the loop so the
views hear the call is running; while it runs, comm messages (the panel's Interrupt, a click)
wait for it to end, as for a cell: the notebook's interrupt button (``SIGINT``) stops it.

What the user's session keeps as it was: ``run_cell_async(store_history=False)`` takes no
execution count and writes no history (``In``, ``_i``, ``_iN``); the last expression goes to a
capturing display hook, never the shell's (so ``_``, ``__``, ``Out`` do not change and nothing
is published to the notebook); a traceback is captured instead of published; ``sys.last_*``,
``last_execution_result`` and the display hook's ``exec_result`` are put back. Output written to
file descriptor 1/2 by C code or child processes is not captured (it goes where the kernel
sends it).
"""

from __future__ import annotations

import asyncio
import re
import sys
import time
from typing import TYPE_CHECKING, Any

from zengine_jupyter.kernel._cell_output import describe_value, reduce_bundle
from zengine_jupyter.kernel._deadline import Deadline
from zengine_jupyter.protocol import CellError, CellImage, CellRunResult

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["HeadlessExecutor"]

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_SAVED = ("last_execution_succeeded", "last_execution_result")
_LAST = ("last_type", "last_value", "last_traceback", "last_exc")


class _Capture:
    """The display hook and traceback sink of one run."""

    def __init__(self, shell: Any) -> None:
        self.shell = shell
        self.outputs: list[str] = []
        self.images: list[CellImage] = []
        self.result: str | None = None
        self.traceback: list[str] = []

    def displayhook(self, value: object = None) -> None:
        if value is None:
            return
        described = describe_value(value)
        data, _ = self.shell.display_formatter.format(value)
        text, image = reduce_bundle(data)
        if image is not None:
            self.add_image(image)
        self.result = described or text

    def add_image(self, image: CellImage) -> None:
        if all(image.data != seen.data for seen in self.images):
            self.images.append(image)

    def published(self, entries: list[dict[str, Any]]) -> None:
        for entry in entries:
            text, image = reduce_bundle(entry.get("data") or {})
            if image is not None:
                self.add_image(image)
            elif text:
                self.outputs.append(text)

    def showtraceback(self, etype: Any, evalue: Any, stb: list[str]) -> None:
        self.traceback = [_ANSI.sub("", line) for line in stb]


class HeadlessExecutor:
    """The :class:`~zengine_jupyter.engine.CellExecutor` for a kernel without a frontend."""

    def __init__(self, shell: Callable[[], Any]) -> None:
        self._shell = shell
        self._publisher: Any = None
        """One capturing publisher, emptied per run (a new one costs a traitlets init)."""

    async def run(
        self, code: str, *, timeout_s: float, after_cell_id: str | None = None
    ) -> CellRunResult:
        from IPython.core.displaypub import CapturingDisplayPublisher
        from IPython.utils.capture import capture_output

        for _ in range(3):  # the views hear "running" before plain code blocks the loop
            await asyncio.sleep(0)
        shell = self._shell()
        if self._publisher is None:
            self._publisher = CapturingDisplayPublisher()
        self._publisher.outputs.clear()
        capture = _Capture(shell)
        saved = {name: getattr(shell, name, None) for name in _SAVED}
        saved_last = {name: getattr(sys, name) for name in _LAST if hasattr(sys, name)}
        exec_result = shell.displayhook.exec_result
        own_tb = shell.__dict__.get("_showtraceback")  # someone's patch on the instance
        trap_hook = shell.display_trap.hook
        try:
            transformed, problem = shell.transform_cell(code), None
        except Exception:
            transformed, problem = code, sys.exc_info()
        is_async = problem is None and shell.should_run_async(
            code, transformed_cell=transformed, preprocessing_exc_tuple=None
        )
        started = time.perf_counter()
        deadline = Deadline(timeout_s)
        error: BaseException | None = None
        with capture_output(display=False) as io:
            publisher = shell.display_pub
            shell.display_pub = self._publisher
            saved_hook, sys.displayhook = sys.displayhook, capture.displayhook
            shell.display_trap.hook = capture.displayhook
            shell._showtraceback = capture.showtraceback
            try:
                with deadline:
                    outcome = await self._execute(shell, code, transformed, problem,
                                                  is_async, deadline)  # fmt: skip
                    error = outcome.error_before_exec or outcome.error_in_exec
                    _flush_figures()
            except KeyboardInterrupt as exc:  # landed just after the code ended
                error = exc
            except asyncio.CancelledError:
                if not deadline.timed_out:
                    raise  # the turn itself was cancelled
                error = KeyboardInterrupt()
            finally:
                capture.published(shell.display_pub.outputs)
                shell.display_pub = publisher
                sys.displayhook = saved_hook
                shell.display_trap.hook = trap_hook
                if own_tb is None:
                    del shell._showtraceback
                else:
                    shell._showtraceback = own_tb
                shell.displayhook.exec_result = exec_result
                for name, value in saved.items():
                    setattr(shell, name, value)
                for name in _LAST:
                    if name in saved_last:
                        setattr(sys, name, saved_last[name])
                    elif hasattr(sys, name):
                        delattr(sys, name)
        return CellRunResult(
            where="headless",
            stdout=io.stdout,
            stderr=io.stderr,
            error=_error(error, capture.traceback),
            result=capture.result,
            outputs=capture.outputs,
            images=capture.images,
            timed_out=deadline.timed_out,
            interrupted=deadline.interrupted and not deadline.timed_out,
            duration_s=round(time.perf_counter() - started, 4),
        )

    @staticmethod
    async def _execute(
        shell: Any, code: str, transformed: str, problem: Any, is_async: bool, deadline: Deadline
    ) -> Any:
        run = shell.run_cell_async(
            code, store_history=False, silent=False, transformed_cell=transformed,
            preprocessing_exc_tuple=problem,
        )  # fmt: skip
        if not is_async:
            return await run  # plain code: runs to its end without yielding
        task = asyncio.ensure_future(run)
        deadline.watch_task(task, asyncio.get_running_loop())
        return await task


def _flush_figures() -> None:
    """Figures drawn but not shown, as the inline backend shows them after a cell (its
    ``post_execute`` hook, which ``run_cell_async`` does not trigger)."""
    inline = sys.modules.get("matplotlib_inline.backend_inline")
    if inline is not None and "matplotlib.pyplot" in sys.modules:
        inline.flush_figures()


def _error(exc: BaseException | None, traceback: list[str]) -> CellError | None:
    if exc is None:
        return None
    text = "\n".join(traceback)
    return CellError(name=type(exc).__name__, value=str(exc), traceback=text)
