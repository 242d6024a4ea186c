"""A cassette: a recorded model session that the ``replay`` provider plays back.

One JSON object per line (``notebooks/cassettes/*.jsonl``): a ``CassetteHeader`` first, then
one ``CassetteStep`` per model request in the order the requests were made. A step keeps what
the request ended with (``CassetteExpect``: the user's text, or the ids of the tool results
sent back) and the provider-neutral stream events of the answer. Replay checks each request
against ``expect`` before playing the answer, so a notebook that drifted from its recording
fails with the cassette and the step named, instead of replaying answers to other questions.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from zengine_jupyter.protocol._data_model import DataModel
from zengine_jupyter.protocol._llm import StreamEvent

__all__ = ["CASSETTE_VERSION", "CassetteExpect", "CassetteHeader", "CassetteStep"]

CASSETTE_VERSION: Literal[1] = 1


class CassetteHeader(DataModel):
    """The first line: what was recorded, from where."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    kind: Literal["cassette"] = "cassette"
    version: Literal[1] = 1
    recorded_at: str
    """ISO 8601 time of the recording (UTC)."""
    host: str
    """The provider host the answers came from (``api.anthropic.com``, ``127.0.0.1``, ...)."""
    model: str | None = None
    notebook: str | None = None
    """The notebook whose run was recorded (set by ``zengine cassette record``)."""
    note: str = ""


class CassetteExpect(DataModel):
    """What a request's last (user) message held: matched on replay."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    texts: list[str] = Field(default_factory=list)
    """The user's text parts, stripped."""
    tool_results: list[str] = Field(default_factory=list)
    """The ``tool_use_id`` of each tool result, in order."""
    errors: list[str] = Field(default_factory=list)
    """The ids among ``tool_results`` sent back as errors (a denial, a failed command)."""

    def describe(self) -> str:
        """One line for an error message."""
        parts = [repr(t if len(t) <= 80 else t[:77] + "...") for t in self.texts]
        for tool_id in self.tool_results:
            failed = " (error)" if tool_id in self.errors else ""
            parts.append(f"result of {tool_id}{failed}")
        return ", ".join(parts) or "nothing"


class CassetteStep(DataModel):
    """One model request and its recorded answer."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    kind: Literal["step"] = "step"
    step: int
    """1-based position in the cassette."""
    expect: CassetteExpect
    events: list[StreamEvent]
