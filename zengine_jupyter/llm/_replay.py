"""The ``replay`` provider: play a recorded model session (a cassette) back, offline.

Matching rule: requests are served in order. Each request's last message must hold what the
recording's next step expects (the same user text, the same tool-result ids with the same
error flags); when it does not, the first step anywhere in the cassette that matches is served
instead (a cell run again), and when none does the request fails with a ``CassetteError``
naming the cassette, the step and both sides. Nothing else of the request is compared (system
prompt, tool list, file contents, paths), so a copy of the project in another folder replays
the same. Clients built on the same cassette in one process share the position, so several
chats of one notebook replay one recording.

Recording: ``RecordingClient`` wraps a live client and appends one step per request to the
cassette (the first request of a process truncates it and writes the header).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from zengine_jupyter.llm._connect import CONNECT_WAYS, NEW_MESSAGE_NOT_RECORDED
from zengine_jupyter.protocol import (
    CassetteError,
    CassetteExpect,
    CassetteHeader,
    CassetteStep,
    ErrorEvent,
    FallbackEvent,
    RetryEvent,
    TextPart,
    ToolResultPart,
    UsageEvent,
)

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from pathlib import Path

    from zengine_jupyter.llm._client import ModelClient
    from zengine_jupyter.llm._cost import CostMeter
    from zengine_jupyter.protocol import ModelRequest, StreamEvent

__all__ = [
    "REPLAY_MODEL",
    "RecordingClient",
    "ReplayClient",
    "expect_of",
    "read_cassette",
]

REPLAY_MODEL = "replay"
"""The model name a replayed answer reports (shown in the widget and recorded in the log)."""

_RERECORD = "re-record it with `zengine cassette record NOTEBOOK`, or run live"


def expect_of(request: ModelRequest) -> CassetteExpect:
    """What ``request`` ended with: its last message's user text and tool-result ids."""
    if not request.messages or request.messages[-1].role != "user":
        return CassetteExpect()
    texts: list[str] = []
    results: list[str] = []
    errors: list[str] = []
    for part in request.messages[-1].content:
        if isinstance(part, TextPart) and part.text.strip():
            texts.append(part.text.strip())
        elif isinstance(part, ToolResultPart):
            results.append(part.tool_use_id)
            if part.is_error:
                errors.append(part.tool_use_id)
    return CassetteExpect(texts=texts, tool_results=results, errors=errors)


def read_cassette(path: Path) -> tuple[CassetteHeader, list[CassetteStep]]:
    """Parse a cassette; raises ``CassetteError`` naming the file and the line."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise CassetteError(
            f"no cassette at {path}",
            hint=f"check ZENGINE_CASSETTE (provider.cassette), or {_RERECORD}",
        ) from None
    except OSError as exc:
        raise CassetteError(f"cannot read the cassette {path}: {exc.strerror}") from None
    header: CassetteHeader | None = None
    steps: list[CassetteStep] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            if header is None:
                header = CassetteHeader.model_validate_json(line)
            else:
                steps.append(CassetteStep.model_validate_json(line))
        except ValueError as exc:
            first = str(exc).splitlines()[0]
            raise CassetteError(
                f"{path} line {number} is not a cassette record ({first})", hint=_RERECORD
            ) from None
    if header is None:
        raise CassetteError(f"{path} is empty", hint=_RERECORD)
    return header, steps


@dataclass
class _Tape:
    """One cassette file as this process plays it: the steps and the shared position."""

    path: Path
    header: CassetteHeader
    steps: list[CassetteStep]
    stamp: int | None = None
    """The file's mtime when read: a re-recorded cassette is read again."""
    position: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self, expect: CassetteExpect) -> CassetteStep:
        with self.lock:
            if self.position < len(self.steps) and self.steps[self.position].expect == expect:
                chosen = self.position
            else:
                matching = [i for i, s in enumerate(self.steps) if s.expect == expect]
                if not matching:
                    raise self._diverged(expect)
                chosen = matching[0]
            self.position = chosen + 1
            return self.steps[chosen]

    def _diverged(self, expect: CassetteExpect) -> CassetteError:
        where = f"cassette {self.path}"
        if self.position >= len(self.steps):
            detail = (
                f"{where} has {len(self.steps)} steps and all were played; this request "
                f"({expect.describe()}) was not recorded"
            )
            hint = _RERECORD
        else:
            recorded = self.steps[self.position]
            detail = (
                f"{where} diverged at step {recorded.step} of {len(self.steps)}: the recording "
                f"expected a request ending with {recorded.expect.describe()}, this one ends "
                f"with {expect.describe()}"
            )
            hint = f"the notebook or its project changed since the recording: {_RERECORD}"
        if expect.texts and not expect.tool_results:  # the user wrote something new
            return CassetteError(f"{NEW_MESSAGE_NOT_RECORDED} ({detail})",
                                 hint=f"{CONNECT_WAYS}; or {hint}")  # fmt: skip
        return CassetteError(detail, hint=hint)


_TAPES: dict[Path, _Tape] = {}
_TAPES_LOCK = threading.Lock()


def _tape(path: Path) -> _Tape:
    """The shared tape for ``path`` (read again when the file changed)."""
    resolved = path.resolve()
    with _TAPES_LOCK:
        tape = _TAPES.get(resolved)
        stamp = resolved.stat().st_mtime_ns if resolved.exists() else None
        if tape is None or tape.stamp != stamp:
            header, steps = read_cassette(resolved)
            tape = _TAPES[resolved] = _Tape(resolved, header, steps, stamp)
        return tape


class ReplayClient:
    """The ``ModelClient`` port over a cassette: no network, no key."""

    def __init__(self, cassette: Path, meter: CostMeter | None = None) -> None:
        self.cassette = cassette
        self._meter = meter

    def __repr__(self) -> str:
        return f"ReplayClient({str(self.cassette)!r})"

    @property
    def notice(self) -> str:
        """What the frontends show at the start of each turn."""
        return (
            f"replaying a recorded session from {self.cassette} (no model is called; set "
            "ANTHROPIC_API_KEY or OPENAI_API_KEY, or ZENGINE_BASE_URL, to run live)"
        )

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        try:
            step = _tape(self.cassette).take(expect_of(request))
        except CassetteError as exc:
            yield ErrorEvent(message=exc.message, hint=exc.hint, kind="client", model="replay")
            return
        for event in step.events:
            if isinstance(event, UsageEvent):
                event = UsageEvent(model=REPLAY_MODEL, usage=event.usage, cost_usd=0.0)
                if self._meter is not None:
                    self._meter.add(0.0)
            yield event

    async def aclose(self) -> None:
        return None


class _Writer:
    """Appends steps to one cassette file; one per file per process."""

    def __init__(self, path: Path, host: str, model: str | None) -> None:
        self.path = path
        self.count = 0
        self.lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        header = CassetteHeader(
            recorded_at=datetime.now(UTC).isoformat(timespec="seconds"), host=host, model=model
        )
        path.write_text(header.model_dump_json() + "\n", encoding="utf-8")

    def append(self, expect: CassetteExpect, events: list[StreamEvent]) -> None:
        with self.lock:
            self.count += 1
            step = CassetteStep(step=self.count, expect=expect, events=events)
            line = (step.model_dump_json(exclude_none=True) + "\n").encode()
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)


_WRITERS: dict[Path, _Writer] = {}


class RecordingClient:
    """A live client whose answers are also written to a cassette."""

    def __init__(self, inner: ModelClient, cassette: Path, host: str, model: str | None) -> None:
        self.inner = inner
        self.cassette = cassette
        resolved = cassette.resolve()
        with _TAPES_LOCK:
            writer = _WRITERS.get(resolved)
            if writer is None or not resolved.exists():  # a new recording to that path
                writer = _WRITERS[resolved] = _Writer(resolved, host, model)
        self._writer = writer

    def __repr__(self) -> str:
        return f"RecordingClient({self.inner!r}, {str(self.cassette)!r})"

    @property
    def notice(self) -> str:
        return f"recording this session to {self.cassette}"

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        kept: list[StreamEvent] = []
        try:
            async for event in self.inner.stream(request):
                if not isinstance(event, RetryEvent | FallbackEvent):
                    kept.append(_plain(event))
                yield event
        finally:
            self._writer.append(expect_of(request), kept)

    async def aclose(self) -> None:
        await self.inner.aclose()


def _plain(event: StreamEvent) -> StreamEvent:
    """The event as replay will give it: no price (replay costs nothing)."""
    if isinstance(event, UsageEvent):
        return event.model_copy(update={"cost_usd": None})
    return event
