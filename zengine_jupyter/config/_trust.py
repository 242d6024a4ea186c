"""``TrustStore``: the folders the user trusts, in ``trust.json`` in the data folder.

One entry per folder, exactly: trusting ``/work/app`` trusts neither ``/work/app/sub`` nor a
worktree of it. Paths are stored resolved (``~`` expanded, symlinks followed), so two spellings of
one folder are one entry. Every change is a read-modify-write under an exclusive lock on
``trust.json.lock`` and lands with an atomic replace, so several kernels and the CLI can trust and
revoke at once without losing an entry or leaving a half-written file.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from zengine_jupyter.config._paths import data_dir
from zengine_jupyter.config._private import (
    PRIVATE_FILE_MODE,
    is_private_place,
    open_private,
    private_dir,
)
from zengine_jupyter.protocol import TrustEntry, TrustFile, TrustStoreError

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["TRUST_FILE_NAME", "TrustStore", "atomic_write_text"]

TRUST_FILE_NAME = "trust.json"


def atomic_write_text(path: Path, text: str, *, mode: int | None = None) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and ``os.replace``.

    ``mode`` defaults to 0o600 in the user's data or settings folder (a missing folder there is
    created 0700), else 0o644 (a project's settings file).
    """
    if mode is None:
        mode = PRIVATE_FILE_MODE if is_private_place(path) else 0o644
    if mode & 0o077:
        path.parent.mkdir(parents=True, exist_ok=True)
    else:
        private_dir(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        Path(tmp).chmod(mode)
        Path(tmp).replace(path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            Path(tmp).unlink()
        raise


def _key(folder: Path | str) -> str:
    return str(Path(folder).expanduser().resolve())


class TrustStore:
    """Which folders are trusted. Cheap to create; every call reads the file afresh."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else data_dir() / TRUST_FILE_NAME

    def entries(self) -> list[TrustEntry]:
        """Every trusted folder, oldest first. Raises :class:`TrustStoreError` if damaged."""
        return list(self._read().folders)

    def is_trusted(self, folder: Path | str) -> bool:
        """Whether exactly this folder is trusted (raises :class:`TrustStoreError` if damaged)."""
        key = _key(folder)
        return any(entry.path == key for entry in self._read().folders)

    def trust(self, folder: Path | str) -> TrustEntry:
        """Record ``folder`` as trusted (idempotent: an existing entry is returned unchanged)."""
        key = _key(folder)
        if not Path(key).is_dir():
            raise TrustStoreError(f"{key} is not a folder", hint="trust the project folder itself")
        with self._locked():
            current = self._read()
            for entry in current.folders:
                if entry.path == key:
                    return entry
            entry = TrustEntry(path=key, trusted_at=datetime.now(UTC))
            self._write(TrustFile(folders=[*current.folders, entry]))
            return entry

    def revoke(self, folder: Path | str) -> bool:
        """Forget ``folder``; ``False`` if it was not trusted."""
        key = _key(folder)
        with self._locked():
            current = self._read()
            kept = [entry for entry in current.folders if entry.path != key]
            if len(kept) == len(current.folders):
                return False
            self._write(TrustFile(folders=kept))
            return True

    def _read(self) -> TrustFile:
        try:
            raw = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return TrustFile()
        except OSError as exc:
            raise TrustStoreError(
                f"{self.path} cannot be read: {exc.strerror or exc}",
                hint="check the data folder's permissions",
            ) from exc
        try:
            return TrustFile.model_validate_json(raw)
        except ValidationError as exc:
            raise TrustStoreError(
                f"{self.path} is damaged, so no folder counts as trusted",
                hint=f"delete {self.path} and trust your projects again",
            ) from exc

    def _write(self, content: TrustFile) -> None:
        try:
            atomic_write_text(
                self.path, content.model_dump_json(indent=2) + "\n", mode=PRIVATE_FILE_MODE
            )
        except OSError as exc:
            raise TrustStoreError(
                f"{self.path} cannot be written: {exc.strerror or exc}",
                hint="check the data folder's permissions and free space",
            ) from exc

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        private_dir(self.path.parent)
        with open_private(self.path.with_name(self.path.name + ".lock"), "ab") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
