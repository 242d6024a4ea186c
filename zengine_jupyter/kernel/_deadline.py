"""Stop code running on the kernel's main thread at a time bound: ``KeyboardInterrupt`` in it.

The code RunCell runs headless blocks the thread it runs on (the kernel's main thread, where
the engine's loop runs too: the code is the user's, it must run where their cells run), so no
loop timer can fire. A watchdog thread (kept between runs) waits for the bound and then sends
``SIGINT`` to the main thread (``signal.pthread_kill``: it also wakes a ``time.sleep`` or a
blocking read). While the
run lasts, :class:`Deadline` installs a ``SIGINT`` handler that raises ``KeyboardInterrupt``
(between cells ipykernel ignores ``SIGINT``), so the notebook's interrupt button stops a
headless run as well; the handler ipykernel had is put back afterwards. Code that swallows
``KeyboardInterrupt`` is interrupted again every second, :data:`RESENDS` times at most: then it
is as stuck as a cell that does the same, and the interrupt button is what is left.

Off the main thread (no signal handler can be installed there), the exception is set on the
running thread with ``PyThreadState_SetAsyncExc``: it lands at the next bytecode, not inside a
blocking call. An async run (top-level ``await``) is first cancelled on its loop.
"""

from __future__ import annotations

import ctypes
import queue
import signal
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio
    from types import FrameType, TracebackType

__all__ = ["RESENDS", "Deadline"]

RESENDS = 10
"""Further interrupts, a second apart, for code that catches the first."""


class Deadline:
    """``with Deadline(seconds):`` around a run; afterwards ``timed_out`` / ``interrupted``."""

    def __init__(
        self,
        seconds: float,
        *,
        task: asyncio.Task[Any] | None = None,
        loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        self.seconds = seconds
        self.timed_out = False
        self.interrupted = False
        """A ``SIGINT`` from outside (the interrupt button) stopped the run."""
        self._task = task
        self._loop = loop
        self._done = threading.Event()
        self._active = False
        self._thread_id = threading.get_ident()
        self._main = threading.current_thread() is threading.main_thread()
        self._saved: Any = None

    def watch_task(self, task: asyncio.Task[Any], loop: asyncio.AbstractEventLoop) -> None:
        """An async run: cancel ``task`` first when the bound passes."""
        self._task, self._loop = task, loop

    def __enter__(self) -> Deadline:
        if self._main:
            self._saved = signal.signal(signal.SIGINT, self._on_sigint)
        self._active = True
        _watcher().jobs.put(self)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._active = False
        self._done.set()
        if self._main:
            signal.signal(signal.SIGINT, self._saved)

    def _on_sigint(self, signum: int, frame: FrameType | None) -> None:
        if not self._active:
            return  # a late one, after the run ended: dropped
        if not self.timed_out:
            self.interrupted = True
        raise KeyboardInterrupt

    def _watch(self) -> None:
        if self._done.wait(self.seconds):
            return
        self.timed_out = True
        if self._task is not None and self._loop is not None:
            self._loop.call_soon_threadsafe(self._task.cancel)
            if self._done.wait(1.0):
                return
        for _ in range(1 + RESENDS):
            if not self._active:
                return
            self._interrupt()
            if self._done.wait(1.0):
                return

    def _interrupt(self) -> None:
        if self._main:
            signal.pthread_kill(self._thread_id, signal.SIGINT)
        else:
            ctypes.pythonapi.PyThreadState_SetAsyncExc(
                ctypes.c_ulong(self._thread_id), ctypes.py_object(KeyboardInterrupt)
            )


class _Watcher(threading.Thread):
    """A watchdog thread kept for the next run (starting a thread costs milliseconds on a
    busy machine, more than the rest of a small run)."""

    def __init__(self) -> None:
        super().__init__(name="runcell-deadline", daemon=True)
        self.jobs: queue.SimpleQueue[Deadline] = queue.SimpleQueue()

    def run(self) -> None:
        while True:
            self.jobs.get()._watch()
            with _LOCK:
                _IDLE.append(self)


_LOCK = threading.Lock()
_IDLE: list[_Watcher] = []


def _watcher() -> _Watcher:
    """An idle watchdog thread, or a new one (two runs at once: two async runs)."""
    with _LOCK:
        if _IDLE:
            return _IDLE.pop()
    watcher = _Watcher()
    watcher.start()
    return watcher
