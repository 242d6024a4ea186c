"""A JupyterLab page in Python, for tests of live notebook edits without a browser.

:class:`FakePage` stands where a panel comm stands in ``kernel/_live_docs.py``'s registry:
it reports the notebooks it "has open" and answers ``doc_request`` s the way the labextension
does (``labextension/src/live.ts``): read gives the notebook, edit applies the op to its cells,
save writes the file, restore replaces the cells. The browser test covers the real page.
"""

from __future__ import annotations

import asyncio
import copy
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    from pydantic import BaseModel

    from zengine_jupyter.kernel._live_docs import LiveRegistry
    from zengine_jupyter.protocol import DocEdit, DocRequest

__all__ = ["FakePage"]


@dataclass
class FakePage:
    """One page with notebooks open (by server-relative path), answering the registry."""

    registry: LiveRegistry
    root: Path
    frontend: str = "page-test"
    notebooks: dict[str, dict[str, Any]] = field(default_factory=dict)
    dirty: dict[str, bool] = field(default_factory=dict)
    closed: bool = False
    requests: list[DocRequest] = field(default_factory=list)
    refuse_restore: bool = False
    """Answer a restore as a user who keeps their version."""
    run_outputs: list[dict[str, Any]] = field(default_factory=list)
    """What a ``run`` request's cell ends with (nbformat outputs)."""

    def open(self, path: str, *, dirty: bool = False) -> None:
        """Open ``path`` (read from disk) and report it."""
        self.notebooks[path] = json.loads((self.root / path).read_text())
        self.dirty[path] = dirty
        self.report()

    def report(self) -> None:
        from zengine_jupyter.protocol import OpenDocuments, OpenNotebook

        self.registry.report(self, OpenDocuments(
            id="r", frontend=self.frontend, server_root=str(self.root),
            notebooks=[OpenNotebook(path=p, dirty=self.dirty[p]) for p in self.notebooks],
        ))  # fmt: skip

    def sources(self, path: str) -> list[str]:
        return ["".join(c["source"]) for c in self.notebooks[path]["cells"]]

    def send(self, message: BaseModel) -> None:
        """The kernel sent ``message``: answer it on the next loop turn, as a page would."""
        from zengine_jupyter.protocol import DocRequest

        assert isinstance(message, DocRequest)
        self.requests.append(message)
        asyncio.get_running_loop().call_soon(self._answer, message)

    def _answer(self, request: DocRequest) -> None:
        from zengine_jupyter.protocol import DocAnswer

        nb = self.notebooks.get(request.path)
        fields: dict[str, Any] = {"ok": True}
        if nb is None:
            fields = {"ok": False, "error": f"{request.path} is not open"}
        elif request.action == "read":
            fields["notebook"] = copy.deepcopy(nb)
        elif request.action == "edit":
            assert request.edit is not None
            _apply(nb["cells"], request.edit)
            self.dirty[request.path] = True
        elif request.action == "save":
            (self.root / request.path).write_text(json.dumps(nb, indent=1) + "\n")
            self.dirty[request.path] = False
        elif request.action == "restore" and self.refuse_restore:
            fields = {"ok": False, "error": "the user kept their version"}
        elif request.action == "restore":
            nb["cells"] = copy.deepcopy(request.cells or [])
        elif request.action == "run":
            fields["cell"] = _run_cell(nb["cells"], request, self.run_outputs)
        fields["dirty"] = self.dirty.get(request.path)
        self.registry.answer(DocAnswer(id="a", request_id=request.id, **fields))


def _apply(cells: list[dict[str, Any]], edit: DocEdit) -> None:
    ids = [c.get("id") for c in cells]
    if edit.op == "insert":
        cells.insert(edit.index, {**(edit.cell or {}), "id": edit.cell_id})
        return
    at = ids.index(edit.cell_id)
    if edit.op == "delete":
        cells.pop(at)
    elif edit.op == "move":
        cells.insert(edit.to_index if edit.to_index is not None else at, cells.pop(at))
    else:
        cells[at] = {**(edit.cell or {}), "id": edit.cell_id}


def _run_cell(
    cells: list[dict[str, Any]], request: DocRequest, outputs: list[dict[str, Any]]
) -> dict[str, Any]:
    """A run: the code inserted after ``after_cell_id`` (else at the end) with ``outputs``."""
    ids = [c.get("id") for c in cells]
    at = ids.index(request.after_cell_id) + 1 if request.after_cell_id in ids else len(cells)
    cell = {"cell_type": "code", "id": f"agent-{len(cells)}", "source": request.code or "",
            "metadata": {}, "outputs": outputs, "execution_count": 7}  # fmt: skip
    cells.insert(at, cell)
    return cell
