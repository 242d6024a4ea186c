"""What running code in the user's kernel gave back: the ``RunCell`` tool's port result.

A ``CellExecutor`` (``engine/_ports.py``) returns one :class:`CellRunResult` per run, whichever
way the code ran: headless (in the kernel's namespace, output captured: ``kernel/_headless.py``)
or through the notebook (a visible cell the frontend inserts and executes). The RunCell tool
turns it into what the model reads (text, capped; images as image content for models that take
images). Executors keep raw-ish content; the caps the model sees are applied by the tool.
Images are bytes here and base64 in JSON (``ser_json_bytes``), so the result crosses a comm.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from zengine_jupyter.protocol._data_model import DataModel

__all__ = ["CellError", "CellImage", "CellRunResult", "CellWhere"]

CellWhere = Literal["headless", "notebook"]
"""Where the code ran: captured in the kernel, or as a visible cell of the open notebook."""


class CellImage(DataModel):
    """One image the code displayed (``plt.show()``, a figure as the last expression,
    ``display(Image(...))``): PNG or JPEG bytes and their size."""

    model_config = ConfigDict(frozen=True, ser_json_bytes="base64", val_json_bytes="base64")
    media_type: Literal["image/png", "image/jpeg"]
    data: bytes
    width: int | None = None
    """Pixels, when the executor could read them from the header."""
    height: int | None = None


class CellError(DataModel):
    """The exception the code raised (``KeyboardInterrupt`` for a run stopped at its bound)."""

    model_config = ConfigDict(frozen=True)
    name: str
    value: str
    traceback: str = ""
    """Plain text (no ANSI colours), the user code's frames only."""


class CellRunResult(DataModel):
    """Everything one run gave back, before the tool caps it for the model."""

    model_config = ConfigDict(frozen=True, ser_json_bytes="base64", val_json_bytes="base64")
    where: CellWhere
    stdout: str = ""
    stderr: str = ""
    error: CellError | None = None
    result: str | None = None
    """The last expression's text form (a DataFrame: shape, dtypes, first rows); ``None``
    when the code ends with a statement or the value is ``None``."""
    outputs: list[str] = Field(default_factory=list)
    """Rich outputs ``display()``-ed while running, each reduced to text (HTML as text),
    in order; images are in :attr:`images` instead."""
    images: list[CellImage] = Field(default_factory=list)
    timed_out: bool = False
    """Stopped at the time bound (``KeyboardInterrupt`` raised in the running code)."""
    interrupted: bool = False
    """Stopped by the user (the notebook's interrupt button) before the bound."""
    duration_s: float = 0.0
    execution_count: int | None = None
    """The notebook cell's count (``where="notebook"``); headless runs take none."""
    cell_id: str | None = None
    """The inserted cell's id (``where="notebook"``)."""
