"""``meta.json``: derived from the log, written atomically, rebuilt when missing or damaged."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal

from pydantic import ValidationError
from pydantic_core import PydanticSerializationError

from zengine_jupyter.protocol import (
    MessageRecord,
    SessionMeta,
    escape_surrogates,
    escape_surrogates_in,
)
from zengine_jupyter.store._files import atomic_write

if TYPE_CHECKING:
    from pathlib import Path

    from zengine_jupyter.store._replay import ResumeState

__all__ = ["EPOCH", "MetaProblem", "check_meta", "meta_from_state", "read_meta", "write_meta"]

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
"""The dates of a chat whose log holds no record at all."""

_TITLE_CHARS = 60

MetaProblem = Literal["missing", "damaged", "stale"]


def _default_title(state: ResumeState) -> str:
    for record in state.transcript:
        if isinstance(record, MessageRecord) and record.role == "user" and record.text.strip():
            first = record.text.strip().splitlines()[0]
            return first if len(first) <= _TITLE_CHARS else first[: _TITLE_CHARS - 1] + "…"
    return "Untitled chat"


def meta_from_state(session_id: str, state: ResumeState, log_size: int) -> SessionMeta:
    """The meta a chat's log implies (the same log always gives the same meta)."""
    return SessionMeta(
        id=session_id,
        title=escape_surrogates(state.title or _default_title(state)),
        created=state.created or EPOCH,
        updated=state.updated or EPOCH,
        cost_usd=state.cost_usd,
        unpriced_requests=state.unpriced_requests,
        message_count=state.message_count,
        model=state.model,
        project=state.project,
        format="v1" if state.imported_from == "v1" else "v2",
        log_size=log_size,
    )


def read_meta(path: Path) -> SessionMeta | MetaProblem:
    """The meta stored at ``path``, or why it cannot be used."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return "missing"
    try:
        return SessionMeta.model_validate_json(data)
    except ValidationError:
        return "damaged"


def check_meta(path: Path, expected: SessionMeta) -> MetaProblem | None:
    """What is wrong with the stored meta compared with what the log implies (None: fine)."""
    stored = read_meta(path)
    if isinstance(stored, str):
        return stored
    return None if stored == expected else "stale"


def write_meta(path: Path, meta: SessionMeta) -> None:
    try:
        data = meta.model_dump_json(indent=2).encode()
    except PydanticSerializationError:  # a title UTF-8 cannot encode: shown escaped
        shown = escape_surrogates_in(meta.model_dump(mode="json"))
        data = json.dumps(shown, indent=2, ensure_ascii=False).encode()
    atomic_write(path, data + b"\n")
