"""The live-documents port: notebooks a frontend has open, read and edited in the frontend.

A frontend (the kernel's, through the JupyterLab labextension) sets ``ToolContext.live``.
NotebookEdit and Read consult it: a notebook open in a page is read from and edited in the
page's document (its shared model), not on disk; Write and Edit refuse to overwrite an open
notebook with unsaved changes. Without a frontend (``zengine run``, nbclient) ``live`` is
None and every tool works on the files as before.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Literal, Protocol

from zengine_jupyter.protocol import ToolError

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from zengine_jupyter.protocol import DocEdit

__all__ = ["LiveDocuments", "LiveState", "notebook_text", "refuse_unsaved"]

LiveState = Literal["closed", "saved", "unsaved"]


class LiveDocuments(Protocol):
    """What the tools need from a frontend's open documents."""

    def state(self, path: Path) -> LiveState:
        """Is ``path`` open in a page (and with unsaved changes)? From the pages' reports."""
        ...

    async def read(self, path: Path) -> dict[str, Any] | None:
        """The notebook as the page has it (nbformat dict); None: no page has it open."""
        ...

    async def edit(self, path: Path, edit: DocEdit) -> dict[str, Any] | None:
        """Apply ``edit`` to the open document; the notebook after it, or None when no page
        has it open any more (the caller then edits the file). Raises
        :class:`~zengine_jupyter.protocol.ToolError` when the page refused (the cell moved)."""
        ...

    async def restore(self, turns: Sequence[str]) -> list[str]:
        """A code rewind dropped ``turns`` (oldest first): put each open notebook they edited
        back in its page as it was before the first of them edited it (the page asks first
        when it has unsaved changes). The absolute paths put back."""
        ...


def notebook_text(notebook: dict[str, Any]) -> str:
    """A live notebook as the text its file would hold (the form diffs are made of):
    nbformat's own writer, as NotebookEdit writes files."""
    import nbformat

    try:
        parsed = nbformat.reads(json.dumps(notebook), as_version=4)
    except Exception as exc:  # nbformat raises many kinds for a damaged notebook
        raise ToolError(f"the open notebook is not readable as nbformat: {exc}") from None
    return str(nbformat.writes(parsed)) + "\n"


def refuse_unsaved(live: LiveDocuments | None, path: Path, shown: str) -> None:
    """Write and Edit never overwrite a notebook open with unsaved changes."""
    if live is not None and live.state(path) == "unsaved":
        raise ToolError(
            f"{shown} is open in JupyterLab with unsaved changes: writing the file would "
            "lose them. Use NotebookEdit (it edits the open notebook), or ask the user to "
            "save or close it first."
        )
