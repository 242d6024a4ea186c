"""RunCell's notebook path, kernel side (issue 23): the page's run cell comes back as a
``CellRunResult``; no page (or a ``--wait`` cell holding the kernel) means headless. The page
itself is driven by tests/e2e/test_live_notebook_browser.py."""

from __future__ import annotations

import base64
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import nbformat
import pytest

from zengine_jupyter.kernel._live_docs import LiveRegistry
from zengine_jupyter.kernel._notebook_run import (
    NotebookExecutor,
    notebook_executor,
    result_from_cell,
)
from zengine_jupyter.testing.live_page import FakePage

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\nfake").decode()
OUTPUTS: list[dict[str, Any]] = [
    {"output_type": "stream", "name": "stdout", "text": ["loaded\n", "3 rows\n"]},
    {"output_type": "stream", "name": "stderr", "text": "careful\n"},
    {"output_type": "display_data", "data": {"image/png": PNG, "text/plain": "<Figure>"},
     "metadata": {}},
    {"output_type": "display_data", "data": {"text/html": "<b>bold</b> &amp; plain"},
     "metadata": {}},
    {"output_type": "execute_result", "execution_count": 7, "metadata": {},
     "data": {"text/plain": "45"}},
]  # fmt: skip


def test_a_run_cells_outputs_become_the_result() -> None:
    result = result_from_cell({"id": "a1", "execution_count": 7, "outputs": OUTPUTS})
    assert result.where == "notebook"
    assert result.stdout == "loaded\n3 rows\n"
    assert result.stderr == "careful\n"
    assert [i.media_type for i in result.images] == ["image/png"]
    assert result.images[0].data.startswith(b"\x89PNG")
    assert result.outputs == ["bold & plain"]
    assert result.result == "45"
    assert (result.execution_count, result.cell_id) == (7, "a1")


def test_an_interrupt_is_the_users_unless_the_bound_was_reached() -> None:
    error = {"output_type": "error", "ename": "KeyboardInterrupt", "evalue": "",
             "traceback": ["\x1b[0;31mKeyboardInterrupt\x1b[0m"]}  # fmt: skip
    by_user = result_from_cell({"outputs": [error]})
    at_bound = result_from_cell({"outputs": [error]}, timed_out=True)
    assert by_user.interrupted
    assert not by_user.timed_out
    assert at_bound.timed_out
    assert not at_bound.interrupted
    assert by_user.error is not None
    assert by_user.error.traceback == "KeyboardInterrupt"  # colours stripped


@pytest.fixture
def page(tmp_path: Path) -> FakePage:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x = 1")]
    nb.cells[0].id = "c-x"
    nb.cells.append(nbformat.v4.new_code_cell("y = 2"))
    nbformat.write(nb, tmp_path / "nb.ipynb")
    return FakePage(LiveRegistry(), tmp_path, run_outputs=OUTPUTS[:1])


async def test_the_executor_asks_the_page_to_run_a_visible_cell(page: FakePage) -> None:
    page.open("nb.ipynb")
    executor = NotebookExecutor(page.registry, (page.root / "nb.ipynb").resolve())
    result = await executor.run("print('loaded')", timeout_s=5, after_cell_id="c-x")
    request = page.requests[-1]
    assert (request.action, request.code, request.timeout_s) == ("run", "print('loaded')", 5)
    assert page.sources("nb.ipynb") == ["x = 1", "print('loaded')", "y = 2"]
    assert result.stdout == "loaded\n3 rows\n"
    assert result.cell_id == "agent-2"


async def test_a_notebook_closed_meanwhile_is_an_error_the_model_reads(page: FakePage) -> None:
    executor = NotebookExecutor(page.registry, (page.root / "nb.ipynb").resolve())
    result = await executor.run("1", timeout_s=5)
    assert result.error is not None
    assert "closed" in result.error.value


class _Controller:
    def __init__(self, live: LiveRegistry, blocking: int) -> None:
        self.live, self.blocking = live, blocking


async def test_headless_while_a_wait_cell_holds_the_kernel_or_no_page_has_it(
    page: FakePage, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JPY_SESSION_NAME", str(page.root / "nb.ipynb"))
    assert notebook_executor(_Controller(page.registry, 0)) is None  # type: ignore[arg-type]
    page.open("nb.ipynb")
    assert notebook_executor(_Controller(page.registry, 0)) is not None  # type: ignore[arg-type]
    assert notebook_executor(_Controller(page.registry, 1)) is None  # type: ignore[arg-type]


async def test_a_frame_the_run_returns_is_described_by_the_object(tmp_path: Path) -> None:
    """The notebook's execute_result holds the frame's text table; the frame itself is in
    this kernel's ``Out``, so the model gets its shape, dtypes and first rows, as headless."""
    import pandas as pd

    frame = pd.DataFrame({"rate": [1.5, 2.5, 3.5], "n": [1, 2, 3]})
    shown = {"output_type": "execute_result", "execution_count": 7, "metadata": {},
             "data": {"text/plain": repr(frame), "text/html": "<table>...</table>"}}  # fmt: skip
    nb = nbformat.v4.new_notebook()
    nbformat.write(nb, tmp_path / "nb.ipynb")
    page = FakePage(LiveRegistry(), tmp_path, run_outputs=[shown])
    page.open("nb.ipynb")
    shell = SimpleNamespace(user_ns={"Out": {7: frame}})
    executor = NotebookExecutor(page.registry, (tmp_path / "nb.ipynb").resolve(), lambda: shell)
    result = await executor.run("frame", timeout_s=5)
    assert result.result is not None
    assert result.result.startswith("DataFrame shape (3, 2)\ndtypes: rate: float64, n: int64")
    assert "0   1.5  1" in result.result
