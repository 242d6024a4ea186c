"""What every built-in tool shares: its input model, the context it runs in, its output."""

from __future__ import annotations

import asyncio
import os
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Generic, Literal, TypeVar

from pydantic import AfterValidator, ConfigDict, ValidationError

from zengine_jupyter.engine.tools._images import ImageStore
from zengine_jupyter.engine.tools._schemas import input_schema_of
from zengine_jupyter.host import ResolvedPath, check_path_text, display_path, resolve_path
from zengine_jupyter.protocol import DataModel, ImagePart, ToolError

if TYPE_CHECKING:
    from collections.abc import Callable

    from zengine_jupyter.engine.tools._files import ReadTracker
    from zengine_jupyter.engine.tools._live import LiveDocuments
    from zengine_jupyter.engine.tools._shells import ShellRunner

__all__ = [
    "INLINE_LIMIT",
    "PathText",
    "Tool",
    "ToolContext",
    "ToolInput",
    "ToolKind",
    "ToolOutput",
    "in_thread",
]

ToolKind = Literal["read", "edit", "execute", "other", "kernel"]
"""How the permission gate sees a tool: reading tools run by default, edits and commands ask;
``kernel`` is code in the user's kernel (RunCell), which asks in every mode but bypass."""

INLINE_LIMIT = 30_000
"""Characters of output a tool returns inline; the rest goes to an artifact."""


PathText = Annotated[str, AfterValidator(check_path_text)]
"""A path argument: text that cannot name a file (NUL, unencodable, a name over 255 bytes)
is an argument error, refused before the gate sees the call."""


class ToolInput(DataModel):
    """Base of every tool's arguments: unknown keys are an error the model can read."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    __slots__ = ("_resolved",)
    """``_resolved``: this call's paths, resolved once, so what ``Tool.paths`` showed the gate
    is what ``run`` touches (see :meth:`ToolContext.target`). A slot, made on first use, not a
    pydantic private attribute: those cost every tool call ~3 us to set up (twice over in a
    subclass), paths or not. A slot is neither compared, hashed, dumped nor copied, so a
    ``model_copy`` resolves its paths afresh."""
    if TYPE_CHECKING:
        _resolved: dict[str, ResolvedPath]

    def resolved(self, raw: str, root: Path) -> ResolvedPath:
        """``raw`` resolved against ``root``, the first time for this call; then the same."""
        try:
            cache: dict[str, ResolvedPath] = self._resolved
        except AttributeError:
            cache = {}
            object.__setattr__(self, "_resolved", cache)  # frozen: only this slot is set
        hit = cache.get(raw)
        if hit is None or hit.root != Path(os.path.realpath(root)):
            hit = cache[raw] = resolve_path(raw, root)
        return hit


@dataclass(frozen=True)
class ToolOutput:
    """A tool's result as the model will read it."""

    content: str
    is_error: bool = False
    artifact: Path | None = None
    """Where the whole output was saved when ``content`` holds only its end."""
    changed_paths: tuple[Path, ...] = ()
    """Files the call wrote (for after-write diagnostics and the verification badge)."""
    diff: str | None = None
    """A unified diff of what an edit changed, for the frontends' tool cards."""
    images: tuple[ImagePart, ...] = ()
    """Images for the model (RunCell's plots), after ``content``; the log keeps each as a
    file under the chat's artifacts, named by its hash (see ``ToolResultRecord.images``)."""


@dataclass
class ToolContext:
    """Everything a tool may touch for one session."""

    root: Path
    """The project (or a worktree agent's own worktree)."""
    artifacts: Path
    """The session's artifacts folder (long outputs)."""
    reads: ReadTracker
    shells: ShellRunner
    additional_directories: tuple[Path, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)
    images: ImageStore = field(default_factory=ImageStore)
    """Images of this chat's tool results (by hash, files under ``artifacts/images``)."""
    read_decision: Callable[[Path], str] | None = None
    """What the permission gate would do with a Read of a path ("allow", "ask" or "deny"):
    Glob and Grep show only files it allows. None (no gate): only the project's own files."""
    live: LiveDocuments | None = None
    """Notebooks open in a frontend (set by the kernel frontend): NotebookEdit and Read use
    the open document; None: files only."""

    def resolve(self, raw: str) -> Path:
        """A path the model gave, through the one resolver (``host._paths.resolve_path``):
        relative to the project root, ``~`` expanded, every symlink resolved. Raises
        :class:`~zengine_jupyter.protocol.PathError` for text that cannot be a path."""
        return resolve_path(raw, self.root).path

    def target(self, args: ToolInput, raw: str) -> ResolvedPath:
        """The path ``raw`` of this call, resolved once: call it from ``Tool.paths`` (for the
        gate) and again from ``run`` (for the IO) and both get the same file."""
        return args.resolved(raw, self.root)

    def display(self, path: Path) -> str:
        """``path`` as the model should see it: relative inside the project."""
        return display_path(path, self.root)


InputT = TypeVar("InputT", bound=ToolInput)


class Tool(ABC, Generic[InputT]):
    """A built-in tool. Subclasses set ``name``, ``kind``, ``Input`` and implement ``run``."""

    name: ClassVar[str]
    kind: ClassVar[ToolKind]
    description: ClassVar[str]
    Input: type[InputT]

    def input_schema(self) -> dict[str, Any]:
        """The JSON schema the model sees for the arguments (made once: ``_schemas``)."""
        return input_schema_of(self.Input)

    def parse(self, arguments: dict[str, Any]) -> InputT:
        """Validate the model's arguments; a mistake becomes a :class:`ToolError` it can fix."""
        try:
            return self.Input.model_validate(arguments)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(map(str, e['loc'])) or 'input'}: {e['msg']}" for e in exc.errors()
            )
            raise ToolError(f"{self.name}: invalid arguments: {problems}") from None

    def paths(self, args: InputT, ctx: ToolContext) -> list[Path]:
        """Files or folders the call reads or writes (the gate checks them against rules)."""
        return []

    def command(self, args: InputT) -> str | None:
        """The shell command the call runs, if any (for Bash rules)."""
        return None

    async def preview(self, args: InputT, ctx: ToolContext) -> str | None:
        """The unified diff this call would make, against the file as it is now: what the
        approval prompt and a denied call show (an edit tool's result carries the same diff
        when the file is unchanged by then). ``None``: nothing to show, or the call would
        fail; never raises for the file's state."""
        return None

    @abstractmethod
    async def run(self, args: InputT, ctx: ToolContext) -> ToolOutput:
        """Do the call. Raise :class:`ToolError` for a mistake the model should correct."""

    async def call(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        """Parse and run; errors come back as an error output, never as an exception."""
        try:
            return await self.run(self.parse(arguments), ctx)
        except ToolError as exc:
            return ToolOutput(str(exc), is_error=True)


async def in_thread(func: Any, *args: Any) -> Any:
    """Run blocking file work off the event loop."""
    return await asyncio.to_thread(func, *args)
