"""``meta.json``: what the chat list shows about a chat without reading its log."""

from __future__ import annotations

from typing import Literal

from pydantic import AwareDatetime, ConfigDict

from zengine_jupyter.protocol._data_model import DataModel

__all__ = ["SessionMeta"]


class SessionMeta(DataModel):
    """A chat's summary, written atomically beside its log.

    Every value is a function of the log (see ``store/_meta.py``), so a missing or
    damaged ``meta.json`` is rebuilt with the same values. ``log_size`` is the number
    of log bytes it describes: a different size on disk means it is stale.
    """

    model_config = ConfigDict(frozen=True, extra="ignore")

    id: str
    title: str
    created: AwareDatetime
    updated: AwareDatetime
    cost_usd: float
    """Money spent so far, including turns a rewind dropped (unknown prices count as 0)."""
    unpriced_requests: int = 0
    """Model requests whose price was unknown, so ``cost_usd`` is a lower bound when > 0."""
    message_count: int
    model: str | None = None
    project: str | None = None
    format: Literal["v1", "v2"] = "v2"
    """``v1`` for a chat imported from a single ``<id>.jsonl`` file (shown as a tag)."""
    log_size: int = 0
