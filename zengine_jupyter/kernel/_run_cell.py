"""The ``RunCell`` tool: the agent runs code in the user's kernel, where their data is.

Safety, stated honestly: kernel code cannot be sandboxed (it is the user's own process, with
their variables, files and credentials). So it is its own permission kind (``kernel``, see
``policy/_code_rules.py``): it asks in default and accept_edits mode with the exact code in
the approval, never runs in plan mode, runs under an allow rule (``RunCell``,
``RunCell(pattern)``) or bypass. Files are checkpointed before the first call of a turn as
for any tool; what the code changes in the kernel (variables, imported modules) is not
rewound, and every result says so.

How it runs is the :class:`~zengine_jupyter.engine.CellExecutor` the controller hands out
per call (headless: ``_headless.py``; with a frontend: a visible cell, built elsewhere). What
goes back to the model: stdout and stderr, the error and a trimmed traceback, the last
expression's text, rich outputs as text, each part capped (``[kernel] output_chars`` in all,
its middle left out), and images as image content for a model the catalog says takes images
(``[kernel] max_images``, ``image_max_bytes``).
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field

from zengine_jupyter.engine import SessionExtension
from zengine_jupyter.engine.tools import Tool, ToolContext, ToolInput, ToolOutput
from zengine_jupyter.protocol import ImagePart

if TYPE_CHECKING:
    from collections.abc import Callable

    from zengine_jupyter.config import KernelSettings
    from zengine_jupyter.engine import CellExecutor, Session
    from zengine_jupyter.protocol import CellImage, CellRunResult

__all__ = ["NOT_REWOUND", "RunCellExtension", "RunCellTool", "render_result"]

NOT_REWOUND = (
    "Kernel state (variables, imported modules) is not rewound by /rewind: only files are."
)
TRACEBACK_LINES = 30
"""Last lines of a traceback kept (the frames nearest the error)."""


class _Input(ToolInput):
    code: str = Field(min_length=1, description="Python code (IPython syntax) to run.")
    timeout_s: float | None = Field(
        default=None, gt=0,
        description="Seconds before the run is interrupted; default from settings "
        "([kernel] run_cell_timeout_s, 120), at most [kernel] run_cell_max_timeout_s.",
    )  # fmt: skip
    after_cell_id: str | None = Field(
        default=None,
        description="With the notebook open: insert the visible cell after this cell id "
        "(from Read); ignored when the kernel runs without a frontend.",
    )


class RunCellTool(Tool[_Input]):
    """Runs code in the user's live kernel and returns what it printed, showed and raised."""

    name: ClassVar[str] = "RunCell"
    kind: ClassVar[Any] = "kernel"
    description: ClassVar[str] = (
        "Run Python code in the user's live Jupyter kernel (their variables and imports; "
        "what you define stays defined). Returns stdout, stderr, the error with a short "
        "traceback, the last expression's value as text (DataFrames as shape, dtypes and "
        "first rows), displayed outputs as text and plots as images. The user approves each "
        "run; a run past its timeout is interrupted. Kernel state is not rewound by /rewind. "
        "Prefer small steps; do not print huge data."
    )
    Input = _Input

    def __init__(
        self,
        executor: Callable[[], CellExecutor],
        settings: Callable[[], KernelSettings],
        takes_images: Callable[[], bool | None],
    ) -> None:
        self._executor = executor
        self._settings = settings
        self._takes_images = takes_images

    def command(self, args: _Input) -> str | None:
        return args.code  # the approval shows the exact code; rules match its lines

    async def run(self, args: _Input, ctx: ToolContext) -> ToolOutput:
        limits = self._settings()
        timeout = min(args.timeout_s or limits.run_cell_timeout_s, limits.run_cell_max_timeout_s)
        result = await self._executor().run(
            args.code, timeout_s=timeout, after_cell_id=args.after_cell_id
        )
        text, images = render_result(result, limits, self._takes_images(), timeout)
        failed = result.error is not None or result.timed_out
        return ToolOutput(text, is_error=failed, images=images)


def _cap(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    cut = len(text) - 2 * half
    return f"{text[:half]}\n... ({cut} characters left out) ...\n{text[-half:]}"


def _size(image: CellImage) -> str:
    pixels = f"{image.width}x{image.height}, " if image.width and image.height else ""
    return f"{image.media_type.split('/')[1]} {pixels}{len(image.data):,} bytes"


def _images(
    found: list[CellImage], limits: KernelSettings, takes: bool | None
) -> tuple[list[str], tuple[ImagePart, ...]]:
    if not found:
        return [], ()
    if not takes:
        why = "this model takes no images" if takes is False else (
            "the model catalog does not say this model takes images")  # fmt: skip
        return [f"{len(found)} image(s) not sent ({why}): "
                + "; ".join(_size(i) for i in found)], ()  # fmt: skip
    notes: list[str] = []
    sent: list[ImagePart] = []
    for image in found:
        if len(image.data) > limits.image_max_bytes:
            notes.append(f"image not sent: {_size(image)} is over [kernel] image_max_bytes "
                         f"({limits.image_max_bytes:,})")  # fmt: skip
        elif len(sent) >= limits.max_images:
            notes.append(f"image not sent: over [kernel] max_images ({limits.max_images})")
        else:
            notes.append(f"image {len(sent) + 1} attached: {_size(image)}")
            data = base64.b64encode(image.data).decode("ascii")
            sent.append(ImagePart(media_type=image.media_type, data=data))
    return notes, tuple(sent)


def render_result(
    result: CellRunResult, limits: KernelSettings, takes_images: bool | None, timeout_s: float
) -> tuple[str, tuple[ImagePart, ...]]:
    """What the model reads of one run: the text (capped) and the images it may see."""
    where = ("headless in the kernel" if result.where == "headless"
             else f"as notebook cell {result.cell_id} [{result.execution_count}]")  # fmt: skip
    sections: list[tuple[str, str]] = []
    if result.stdout:
        sections.append(("stdout", result.stdout))
    if result.stderr:
        sections.append(("stderr", result.stderr))
    for output in result.outputs:
        sections.append(("output", output))
    if result.result is not None:
        sections.append(("result (last expression)", result.result))
    if result.error is not None:
        lines = result.error.traceback.splitlines()
        trimmed = "\n".join(lines[-TRACEBACK_LINES:])
        if len(lines) > TRACEBACK_LINES:
            trimmed = f"({len(lines) - TRACEBACK_LINES} traceback lines above left out)\n" + trimmed
        head = f"{result.error.name}: {result.error.value}"
        sections.append(("error", f"{head}\n{trimmed}" if trimmed else head))
    budget = max(200, limits.output_chars // max(1, len(sections)))
    body = [f"{title}:\n{_cap(text.rstrip(), budget)}" for title, text in sections]
    notes, images = _images(result.images, limits, takes_images)
    lines = [f"Ran {where} in {result.duration_s:.2f} s.", *body, *notes]
    if result.timed_out:
        cancelled = result.error is not None and result.error.name == "CancelledError"
        how = (
            "it was cancelled at its await"
            if cancelled
            else "KeyboardInterrupt was raised in the running code"
        )
        lines.append(
            f"Stopped at the {timeout_s:g} s bound: {how}; the kernel is usable. "
            "Anything it did before stays."
        )
    elif result.interrupted:
        lines.append("Interrupted by the user (KeyboardInterrupt); the kernel is usable.")
    if len(lines) == 1:
        lines.append("(no output)")
    lines.append(NOT_REWOUND)
    return "\n".join(lines), images


class RunCellExtension(SessionExtension):
    """Adds :class:`RunCellTool` to a chat the kernel opens; ``executor`` picks how each call
    runs (headless, or through the notebook when a frontend has it open)."""

    name = "kernel-run-cell"

    def __init__(self, executor: Callable[[], CellExecutor]) -> None:
        self._executor = executor

    async def start(self, session: Session) -> None:
        def takes_images() -> bool | None:
            info = session.model_info()
            return None if info is None else info.images

        tool = RunCellTool(self._executor, lambda: session.settings.settings.kernel, takes_images)
        session.tools[tool.name] = tool
