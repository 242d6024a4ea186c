"""Notebooks open in JupyterLab pages, for the engine's live-documents port.

Each panel comm reports its page's open notebooks (``open_documents``); :class:`LiveRegistry`
keeps them by absolute path. :class:`ChatLive` is one chat's
:class:`~zengine_jupyter.engine.tools.LiveDocuments`: it reads and edits a notebook through
the page that has it open (a ``doc_request`` on that page's comm, answered by ``doc_answer``),
and before a turn first edits an open notebook it keeps the notebook as it was in the chat's
folder (``live/``, a :class:`~zengine_jupyter.protocol.LiveBefore` per turn and notebook, beside
the turn's file checkpoint), so a code rewind to that turn puts the open document back
(:meth:`ChatLive.restore`), also after the kernel restarted.

One page per notebook does the edit: with jupyter-collaboration the pages share the document,
so one edit reaches every collaborator; without it, the page that reported last wins.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from pydantic import BaseModel

    from zengine_jupyter.engine.tools import LiveState
    from zengine_jupyter.protocol import DocAnswer, DocEdit, LiveBefore, OpenDocuments

__all__ = ["ChatLive", "LiveRegistry", "PageView"]


class PageView(Protocol):
    """Where a page's requests go: its panel comm (``kernel/_comm.py``)."""

    closed: bool

    def send(self, message: BaseModel) -> None: ...


ANSWER_TIMEOUT_S = 30.0
"""How long a page may take to answer (a restore waits for the user's answer to a dialog)."""


@dataclass
class _Page:
    view: PageView
    root: Path
    notebooks: dict[Path, tuple[str, bool]] = field(default_factory=dict)
    """Absolute path -> (the page's own path, dirty)."""


@dataclass
class LiveRegistry:
    """The pages on this kernel and the notebooks each has open."""

    pages: dict[str, _Page] = field(default_factory=dict)
    _waiting: dict[str, asyncio.Future[DocAnswer]] = field(default_factory=dict)
    _ids: itertools.count[int] = field(default_factory=itertools.count)

    # ------------------------------------------------------------ from the pages
    def report(self, view: PageView, report: OpenDocuments) -> None:
        root = Path(report.server_root) if report.server_root else Path.cwd()
        page = _Page(view, root)
        for notebook in report.notebooks:
            page.notebooks[_absolute(root, notebook.path)] = (notebook.path, notebook.dirty)
        self.pages.pop(report.frontend, None)
        self.pages[report.frontend] = page  # the last to report comes last: it wins

    def answer(self, answer: DocAnswer) -> bool:
        future = self._waiting.pop(answer.request_id, None)
        if future is None or future.done():
            return False
        future.set_result(answer)
        return True

    def forget(self, view: PageView) -> None:
        for frontend, page in list(self.pages.items()):
            if page.view is view:
                del self.pages[frontend]

    # ------------------------------------------------------------ for the engine
    def page_for(self, path: Path) -> _Page | None:
        key = _absolute(path.parent, path.name)
        found = None
        for page in self.pages.values():
            if key in page.notebooks and not page.view.closed:
                found = page
        return found

    def state(self, path: Path) -> LiveState:
        page = self.page_for(path)
        if page is None:
            return "closed"
        return "unsaved" if page.notebooks[_absolute(path.parent, path.name)][1] else "saved"

    async def ask(
        self, path: Path, action: str, *, wait_s: float = ANSWER_TIMEOUT_S, **fields: Any
    ) -> DocAnswer | None:
        """Send a ``doc_request`` to the page that has ``path`` open; None: none has it."""
        from zengine_jupyter.protocol import DocRequest, ToolError

        page = self.page_for(path)
        if page is None:
            return None
        key = _absolute(path.parent, path.name)
        request_id = f"k{next(self._ids)}"
        request = DocRequest(id=request_id, action=action,  # type: ignore[arg-type]
                             path=page.notebooks[key][0], **fields)  # fmt: skip
        future: asyncio.Future[DocAnswer] = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = future
        page.view.send(request)
        try:
            answer = await asyncio.wait_for(future, wait_s)
        except TimeoutError:
            raise ToolError(
                f"JupyterLab did not answer in {wait_s:.0f} s about {key.name}",
                hint="reload the page, or close the notebook so the file is edited",
            ) from None
        finally:
            self._waiting.pop(request_id, None)
        if answer.dirty is not None:
            page.notebooks[key] = (page.notebooks[key][0], answer.dirty)
        return answer


@dataclass
class ChatLive:
    """One chat's live-documents port."""

    registry: LiveRegistry
    turn: Callable[[], str | None]
    """The chat's running turn (its edits are grouped by it for review and rewind)."""
    folder: Path | None = None
    """Where the notebooks as they were before each turn are kept (the chat's ``live/``);
    None: in memory only (tests)."""
    _kept: dict[tuple[str, Path], dict[str, Any]] = field(default_factory=dict)

    def state(self, path: Path) -> LiveState:
        return self.registry.state(path)

    async def read(self, path: Path) -> dict[str, Any] | None:
        answer = await self.registry.ask(path, "read")
        if answer is None:
            return None
        _raise_refused(answer, path)
        return answer.notebook

    async def edit(self, path: Path, edit: DocEdit) -> dict[str, Any] | None:
        turn_id = self.turn()
        key = _absolute(path.parent, path.name)
        if turn_id is not None and (turn_id, key) not in self._kept:
            notebook = await self.read(path)
            if notebook is None:
                return None
            await self._keep(turn_id, key, notebook)
        answer = await self.registry.ask(path, "edit", edit=edit, turn_id=turn_id)
        if answer is None:
            return None
        _raise_refused(answer, path)
        return answer.notebook or {}

    async def restore(self, turns: Sequence[str]) -> list[str]:
        """Put each open notebook ``turns`` edited back as it was before the first of them
        (the page asks first when it has unsaved changes); the paths put back. A notebook no
        page has open now is left to the file rewind."""
        kept = await self._load()
        first: dict[Path, dict[str, Any]] = {}
        for turn_id in turns:
            for (kept_turn, path), notebook in kept.items():
                if kept_turn == turn_id:
                    first.setdefault(path, notebook)
        restored = []
        for path, notebook in first.items():
            with contextlib.suppress(Exception):  # a page gone: the file is what it is
                answer = await self.registry.ask(path, "restore", cells=notebook.get("cells", []))
                if answer is not None and answer.ok:
                    restored.append(str(path))
        return restored

    async def _keep(self, turn_id: str, path: Path, notebook: dict[str, Any]) -> None:
        from zengine_jupyter.protocol import LiveBefore

        self._kept[(turn_id, path)] = notebook
        if self.folder is not None:
            record = LiveBefore(turn_id=turn_id, path=str(path), notebook=notebook)
            await asyncio.to_thread(_write_kept, self.folder, record)

    async def _load(self) -> dict[tuple[str, Path], dict[str, Any]]:
        """What this chat kept: in memory, and in its folder (a restarted kernel's chat)."""
        kept = dict(self._kept)
        if self.folder is not None:
            for record in await asyncio.to_thread(_read_kept, self.folder):
                kept.setdefault((record.turn_id, Path(record.path)), record.notebook)
        return kept


def _kept_name(turn_id: str, path: Path) -> str:
    return hashlib.sha256(f"{turn_id}\0{path}".encode()).hexdigest()[:32] + ".json"


def _write_kept(folder: Path, record: LiveBefore) -> None:
    from zengine_jupyter.config import private_dir, write_private

    private_dir(folder)
    target = folder / _kept_name(record.turn_id, Path(record.path))
    tmp = target.with_suffix(".tmp")
    write_private(tmp, record.model_dump_json())
    tmp.replace(target)


def _read_kept(folder: Path) -> list[LiveBefore]:
    from pydantic import ValidationError

    from zengine_jupyter.protocol import LiveBefore

    found = []
    for file in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        with contextlib.suppress(OSError, ValidationError):  # a damaged one restores nothing
            found.append(LiveBefore.model_validate_json(file.read_bytes()))
    return found


def _raise_refused(answer: DocAnswer, path: Path) -> None:
    from zengine_jupyter.protocol import ToolError

    if not answer.ok:
        raise ToolError(
            f"JupyterLab refused the change to {path.name}: {answer.error or 'no reason given'}",
            hint="Read the notebook again (the user may have moved or deleted the cell)",
        )


def _absolute(root: Path, relative: str) -> Path:
    return Path(os.path.realpath(root / relative))


if TYPE_CHECKING:  # ChatLive is the engine's port
    from zengine_jupyter.engine.tools import LiveDocuments

    _port: type[LiveDocuments] = ChatLive
