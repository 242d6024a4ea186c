"""The shape of ``trust.json``: one entry per trusted folder, exactly as resolved."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import ConfigDict, Field

from zengine_jupyter.protocol._data_model import DataModel

__all__ = ["TrustEntry", "TrustFile"]


class TrustEntry(DataModel):
    """One folder the user trusts. Subfolders and worktrees are not covered: they need their own."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    """Absolute, symlink-resolved folder."""
    trusted_at: datetime


class TrustFile(DataModel):
    """The whole of ``trust.json`` in the data folder."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: Literal[1] = 1
    folders: list[TrustEntry] = Field(default_factory=list)
