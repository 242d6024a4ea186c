"""The catalog on disk: the models.dev cache in the data folder, its background refresh, and
what stands in when there is no usable cache.

Files: ``<data folder>/cache/models-dev.json`` (the last download of ``https://models.dev/api.json``,
or of ``$ZENGINE_CATALOG_URL``) and ``<data folder>/models.json`` (the user's corrections).
``read`` gives a :class:`LoadedCatalog`: the cache (or, when there is none or it is broken, the
snapshot bundled with the package) corrected by models.json, with a problem sentence per broken
file or part; it never raises. Reading and parsing run in a thread; so does the parsing of a
download. ``refresh`` fetches the catalog once (offline: False, the old copy stays, quietly);
the engine schedules it in the background (``engine._catalog``), never on a request's path.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from zengine_jupyter.config import data_dir, private_dir
from zengine_jupyter.llm._catalog import Catalog
from zengine_jupyter.llm._catalog_files import (
    is_catalog,
    read_catalog_file,
    read_corrections,
    read_snapshot,
)
from zengine_jupyter.llm._httpx import httpx

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = [
    "CATALOG_URL_ENV",
    "MODELS_DEV_URL",
    "CatalogCache",
    "CatalogSource",
    "LoadedCatalog",
    "catalog_url",
]

MODELS_DEV_URL = "https://models.dev/api.json"
CATALOG_URL_ENV = "ZENGINE_CATALOG_URL"
"""Where the catalog is fetched from instead of models.dev (a mirror, a test server);
``off`` turns the refresh off (the cache, else the bundled snapshot, is used as it is)."""
_DAY_S = 24 * 3600.0
_MAX_BYTES = 64 * 1024 * 1024
"""A download above this is not a catalog (the live one is a few MB)."""
_log = logging.getLogger(__name__)

CatalogSource = Literal["cache", "bundled"]
Stamp = tuple[tuple[int, int] | None, tuple[int, int] | None]
"""(mtime_ns, size) of the cache and of models.json (None: absent): changes mean re-read."""


def catalog_url(environ: Mapping[str, str] | None = None) -> str | None:
    """The URL to refresh from: ``$ZENGINE_CATALOG_URL``, else models.dev; None when ``off``."""
    env = os.environ if environ is None else environ
    value = env.get(CATALOG_URL_ENV, "").strip()
    if value.lower() == "off":
        return None
    return value or MODELS_DEV_URL


@dataclass(frozen=True)
class LoadedCatalog:
    """One reading of the files: the catalog and where it came from."""

    catalog: Catalog
    source: CatalogSource
    """``cache``: the downloaded file; ``bundled``: the snapshot in the package."""
    path: Path
    """The cache file (used or not)."""
    user_path: Path
    cached_at: float | None = None
    """The cache's modification time (when ``source`` is ``cache``)."""
    corrections: int = 0
    """Models corrected by models.json."""
    problems: tuple[str, ...] = ()
    """A sentence per broken file or part (naming it); the rest was used."""
    stamp: Stamp = field(default=(None, None), compare=False)

    def age_s(self, now: float | None = None) -> float | None:
        if self.cached_at is None:
            return None
        return (time.time() if now is None else now) - self.cached_at


def _stat(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


class CatalogCache:
    """The cached models.dev file: read it, tell its age, refresh it."""

    def __init__(self, folder: Path | None = None, url: str | None = MODELS_DEV_URL) -> None:
        base = folder if folder is not None else data_dir()
        self.path = base / "cache" / "models-dev.json"
        self.user_path = base / "models.json"
        self.url = url
        """None: never refreshed (``ZENGINE_CATALOG_URL=off``)."""

    def stamp(self) -> Stamp:
        return _stat(self.path), _stat(self.user_path)

    def read_now(self) -> LoadedCatalog:
        """Blocking: read both files (``read`` runs this in a thread)."""
        stamp = self.stamp()
        providers, problem = read_catalog_file(self.path)
        problems = [problem] if problem else []
        source: CatalogSource = "cache" if providers is not None else "bundled"
        if providers is None:
            providers = read_snapshot()
        corrections, more = read_corrections(self.user_path)
        cached_at = stamp[0][0] / 1e9 if source == "cache" and stamp[0] else None
        return LoadedCatalog(
            catalog=Catalog(providers, corrections),
            source=source,
            path=self.path,
            user_path=self.user_path,
            cached_at=cached_at,
            corrections=len(corrections),
            problems=(*problems, *more),
            stamp=stamp,
        )

    async def read(self) -> LoadedCatalog:
        return await asyncio.to_thread(self.read_now)

    async def load(self) -> Catalog:
        """Just the catalog (see :meth:`read`)."""
        return (await self.read()).catalog

    def is_stale(self, now: float | None = None, max_age_s: float = _DAY_S) -> bool:
        try:
            mtime = self.path.stat().st_mtime
        except FileNotFoundError:
            return True
        return (time.time() if now is None else now) - mtime >= max_age_s

    async def refresh(self, timeout_s: float = 30.0) -> bool:
        """Fetch the catalog and replace the cache atomically. False (and the old copy kept,
        with only a debug log line) when offline, turned off, or the answer is not a catalog."""
        if self.url is None:
            return False
        body = bytearray()
        # made in a thread: loading the CA bundle would hold the loop (and a first turn's
        # request, which the refresh starts beside) for tens of ms
        client = await asyncio.to_thread(
            httpx.AsyncClient, timeout=timeout_s, follow_redirects=True
        )
        try:
            async with client as http, http.stream("GET", self.url) as resp:
                resp.raise_for_status()
                async for chunk in resp.aiter_bytes():
                    body += chunk
                    if len(body) > _MAX_BYTES:
                        _log.debug("catalog refresh from %s: answer too large", self.url)
                        return False
        except httpx.HTTPError as exc:
            _log.debug("catalog refresh from %s failed: %s", self.url, type(exc).__name__)
            return False
        return await asyncio.to_thread(self._store, bytes(body))

    def start_refresh(self, group: asyncio.TaskGroup) -> asyncio.Task[bool] | None:
        """Start ``refresh`` as a task of ``group`` when the cache is stale (None when it is
        fresh). Nothing waits for it: requests use the copy that is there."""
        if not self.is_stale():
            return None
        return group.create_task(self.refresh())

    async def refresh_if_stale(self, now: float | None = None) -> bool:
        """Refresh when the cache is missing or a day old; meant for a background task."""
        if not self.is_stale(now):
            return False
        return await self.refresh()

    def _store(self, content: bytes) -> bool:
        try:
            data = json.loads(content)
        except ValueError:
            _log.debug("catalog refresh from %s: not JSON", self.url)
            return False
        if not is_catalog(data):
            _log.debug("catalog refresh from %s: not a catalog", self.url)
            return False
        try:
            self._write(content)
        except OSError as exc:
            _log.warning("cannot write the catalog cache %s: %s", self.path, exc.strerror)
            return False
        return True

    def _write(self, content: bytes) -> None:
        private_dir(self.path.parent)
        fd, name = tempfile.mkstemp(
            prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent
        )
        tmp = Path(name)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(content)
            tmp.replace(self.path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
