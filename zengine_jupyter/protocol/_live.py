"""Live notebooks: what the labextension and the kernel say about notebooks open in a frontend.

The labextension reports which notebooks its page has open (:class:`OpenDocuments`, a panel
request); the kernel then asks it to read or change one of them (:class:`DocRequest`, sent
unprompted on the ``zengine`` comm, with an ``id`` the kernel chose) and the page answers with
:class:`DocAnswer` (a panel request carrying that id back). Edits go to the open document's
shared model, so the user's unsaved work in other cells stays, the cursor stays, and with
jupyter-collaboration every collaborator sees them. A notebook no frontend has open is edited
on disk as before.

Cells travel as nbformat v4 cell dicts (``cell_type``, ``id``, ``source``, ``metadata`` and,
for code, ``outputs`` and ``execution_count``); a whole notebook as its nbformat dict.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict

from zengine_jupyter.protocol._data_model import DataModel
from zengine_jupyter.protocol._wire_version import WIRE_VERSION, WireVersion

__all__ = [
    "DocAnswer",
    "DocEdit",
    "DocRequest",
    "LiveBefore",
    "OpenDocuments",
    "OpenNotebook",
]


class _Model(DataModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class OpenNotebook(_Model):
    """One notebook a page has open."""

    path: str
    """Relative to the Jupyter server's root (as the page's ``context.path``)."""
    dirty: bool
    """The document has changes not saved to its file."""


class DocEdit(_Model):
    """One change to an open notebook, resolved by the engine (index and cell known)."""

    op: Literal["insert", "replace", "delete", "move"]
    index: int
    """insert: where the new cell goes; replace / delete / move: where ``cell_id`` is now."""
    cell_id: str
    """The cell changed (insert: the new cell's id); the page checks it is at ``index``."""
    cell: dict[str, Any] | None = None
    """insert / replace: the cell as it is to be (a replace with another ``cell_type``
    changes the cell's type, keeping its id)."""
    to_index: int | None = None
    """move: the cell's new position."""


class DocRequest(_Model):
    """Kernel -> page: read, edit, save or restore an open notebook; one :class:`DocAnswer`
    answers it (same ``id``)."""

    v: WireVersion = WIRE_VERSION
    kind: Literal["doc_request"] = "doc_request"
    id: str
    action: Literal["read", "edit", "save", "restore", "run"]
    """read: the notebook as it is in the page; edit: apply ``edit`` (the page lists the
    cell in turn ``turn_id``'s review); save: save it to its file; restore: set its cells to
    ``cells`` (a code rewind; the page asks first when it has unsaved changes); run: insert
    ``code`` as a visible code cell marked as the agent's (after ``after_cell_id``, else at the
    end) and execute it through the notebook (its output renders, the usual interrupt button
    stops it), interrupting the kernel after ``timeout_s``."""
    path: str
    """Relative to the Jupyter server's root."""
    edit: DocEdit | None = None
    cells: list[dict[str, Any]] | None = None
    turn_id: str | None = None
    """The turn that makes the edit: the page groups its per-cell review by it."""
    code: str | None = None
    timeout_s: float | None = None
    after_cell_id: str | None = None


class OpenDocuments(_Model):
    """Page -> kernel (a panel request): the notebooks this page has open, sent when one opens,
    closes, is renamed or gets (or loses) unsaved changes."""

    v: WireVersion = WIRE_VERSION
    kind: Literal["open_documents"] = "open_documents"
    id: str
    frontend: str
    """The page, an id it chose once (two pages on one kernel are two frontends)."""
    server_root: str | None = None
    """The server's root folder on disk, when the page knows it (else the kernel's)."""
    notebooks: list[OpenNotebook] = []


class DocAnswer(_Model):
    """Page -> kernel (a panel request): the answer to a :class:`DocRequest`."""

    v: WireVersion = WIRE_VERSION
    kind: Literal["doc_answer"] = "doc_answer"
    id: str
    request_id: str
    """The :class:`DocRequest`'s id."""
    ok: bool
    error: str | None = None
    """Why not (the cell moved, the user kept their version, the notebook closed)."""
    notebook: dict[str, Any] | None = None
    """read (and edit / restore: after the change): the notebook as nbformat."""
    dirty: bool | None = None
    """After the action: the document has unsaved changes."""
    cell: dict[str, Any] | None = None
    """run: the cell as it ended (id, outputs, execution_count)."""
    timed_out: bool = False
    """run: the page interrupted the kernel at ``timeout_s``."""


class LiveBefore(_Model):
    """An open notebook as it was in the page before a turn first edited it, kept in the
    chat's folder (``live/``) beside the turn's file checkpoint: a code rewind to that turn
    puts the open document's cells back from it, also after a kernel restart. The file
    checkpoint holds the saved file; this holds what the user saw, unsaved edits included."""

    v: WireVersion = WIRE_VERSION
    turn_id: str
    path: str
    """The notebook's absolute path."""
    notebook: dict[str, Any]
    """The notebook as nbformat, as the page had it."""
