"""The chats' model catalog: one copy per data folder, shared by every chat of the process,
kept current and refreshed in the background.

``open_catalog`` gives the :class:`SharedCatalog` of the data folder (read in a thread the first
time). It is the ``ModelLookup`` the chat's clients price and cap requests with, so a change
reaches them without a rebuild: at each turn start :class:`CatalogExtension` reads the files
again when they changed (a new download, an edited models.json), and starts the refresh when
the cache is missing, broken or a day old (never more than one at a time, not again within an
hour of a failed try). The refresh runs as the extension's task, off every request's path;
offline the cache (else the bundled snapshot) stays in use, quietly. A broken file is a notice
naming it, once per chat; the rest of the catalog applies.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from zengine_jupyter.config import data_dir
from zengine_jupyter.engine._extension import SessionExtension
from zengine_jupyter.llm import CATALOG_URL_ENV, SNAPSHOT_DATE, CatalogCache, catalog_url
from zengine_jupyter.protocol import Notice

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from zengine_jupyter.engine._session import Session
    from zengine_jupyter.llm import LoadedCatalog, ModelInfo

__all__ = ["CatalogExtension", "SharedCatalog", "describe_catalog", "open_catalog"]

_DAY_S = 24 * 3600.0
_log = logging.getLogger(__name__)
_RETRY_AFTER_FAILURE_S = 3600.0


class SharedCatalog:
    """The catalog of one data folder as last read, and its refresh."""

    def __init__(self, cache: CatalogCache) -> None:
        self.cache = cache
        self._loaded: LoadedCatalog | None = None
        self._failed_at: float | None = None
        self._refreshing: asyncio.Task[bool] | None = None

    @property
    def loaded(self) -> LoadedCatalog:
        if self._loaded is None:
            raise RuntimeError("the catalog is read by open_catalog() before use")
        return self._loaded

    def model(self, model_id: str, host: str | None = None) -> ModelInfo | None:
        loaded = self._loaded
        return loaded.catalog.model(model_id, host) if loaded is not None else None

    async def current(self) -> LoadedCatalog:
        """The catalog, read again (in a thread) when a file changed since the last read."""
        stamp = await asyncio.to_thread(self.cache.stamp)
        if self._loaded is None or stamp != self._loaded.stamp:
            self._loaded = await self.cache.read()
        return self._loaded

    def refresh_due(self, now: float | None = None) -> bool:
        """Whether to fetch the catalog now: refresh on, none running, not just failed, and
        the cache missing, broken or a day old."""
        now = time.time() if now is None else now
        if self.cache.url is None or self._running():
            return False
        if self._failed_at is not None and now - self._failed_at < _RETRY_AFTER_FAILURE_S:
            return False
        age = self._loaded.age_s(now) if self._loaded is not None else None
        return age is None or age >= _DAY_S

    def start_refresh(self) -> asyncio.Task[bool] | None:
        """The refresh as a new task when it is due (the caller owns it), else None."""
        if not self.refresh_due():
            return None
        task = asyncio.get_running_loop().create_task(self._refresh(), name="zengine-catalog")
        self._refreshing = task
        return task

    def _running(self) -> bool:
        task = self._refreshing
        if task is None or task.done():
            return False
        loop = task.get_loop()  # a task of a loop that is gone never finishes
        return not loop.is_closed() and loop is asyncio.get_running_loop()

    async def _refresh(self) -> bool:
        if not await self.cache.refresh():
            self._failed_at = time.time()
            return False
        self._failed_at = None
        await self.current()
        return True


_SHARED: dict[tuple[Path, str | None], SharedCatalog] = {}


async def open_catalog(environ: Mapping[str, str] | None = None) -> SharedCatalog:
    """The shared catalog of the data folder, read (once per change) in a thread."""
    cache = CatalogCache(data_dir(), url=catalog_url(environ))
    shared = _SHARED.setdefault((cache.path, cache.url), SharedCatalog(cache))
    await shared.current()
    return shared


def describe_catalog(shared: SharedCatalog) -> str:
    """Which catalog is in use, for /model."""
    loaded = shared.loaded
    fixes = f", {loaded.corrections} model(s) corrected by {loaded.user_path}"
    fixes = fixes if loaded.corrections else ""
    if loaded.source == "cache" and loaded.cached_at is not None:
        when = datetime.fromtimestamp(loaded.cached_at, UTC).strftime("%Y-%m-%d %H:%M UTC")
        return f"catalog: models.dev as of {when} ({loaded.path}){fixes}"
    if shared.cache.url is None:
        later = f"the refresh is off ({CATALOG_URL_ENV}=off)"
    else:
        later = f"it is fetched from {shared.cache.url} in the background when reachable"
    why = "cannot be used" if loaded.path.exists() else "does not exist yet"
    return (
        f"catalog: the bundled snapshot of models.dev ({SNAPSHOT_DATE}) is in use: "
        f"the cache {loaded.path} {why}; {later}{fixes}"
    )


class CatalogExtension(SessionExtension):
    """Keeps the chat's catalog current, refreshes it in the background, reports bad files."""

    name = "catalog"

    def __init__(self) -> None:
        self._told: set[str] = set()
        self._tasks: set[asyncio.Task[bool]] = set()

    @property
    def refreshing(self) -> asyncio.Task[bool] | None:
        """The refresh this chat started and that still runs (tests wait for it)."""
        return next((t for t in self._tasks if not t.done()), None)

    async def start(self, session: Session) -> None:
        if session.catalog is None:
            return
        for problem in session.catalog.loaded.problems:
            self._told.add(problem)
            session.announce(Notice(session_id=session.id, topic="catalog", text=problem))
        self._refresh(session)

    async def turn_started(self, session: Session, turn_id: str) -> None:
        if session.catalog is None:
            return
        loaded = await session.catalog.current()
        for problem in loaded.problems:
            if problem not in self._told:
                self._told.add(problem)
                session.bus.publish(
                    Notice(session_id=session.id, turn_id=turn_id, topic="catalog", text=problem)
                )
        self._refresh(session)

    def _refresh(self, session: Session) -> None:
        assert session.catalog is not None
        task = session.catalog.start_refresh()
        if task is not None:
            self._tasks.add(task)
            task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[bool]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (exc := task.exception()) is not None:
            _log.warning("the catalog refresh failed: %r", exc)

    async def aclose(self) -> None:
        tasks, self._tasks = list(self._tasks), set()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
