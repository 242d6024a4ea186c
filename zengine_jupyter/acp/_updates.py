"""Engine events and log records as ACP ``session/update`` payloads.

One :class:`UpdateMapper` per ACP session turns what the engine publishes (text, thinking,
tool calls and their answers, notices, cost) into the protocol's update models, and a chat's
log into the same updates for ``session/load``. Paths are made absolute (the protocol's rule);
an edit's unified diff becomes one ``diff`` content per hunk (see ``_diffs``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from acp import (
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_tool_call,
    update_user_message_text,
)
from acp.schema import ToolCallLocation, ToolCallUpdate

from zengine_jupyter.acp._diffs import hunks_of
from zengine_jupyter.engine import approval_outcome
from zengine_jupyter.protocol import (
    CheckRecorded,
    EngineError,
    MessageRecord,
    Notice,
    ProviderBusy,
    TextStreamed,
    ThinkingStreamed,
    ToolCallApproved,
    ToolCallDenied,
    ToolCallFinished,
    ToolCallProposed,
    ToolCallStarted,
    ToolResultRecord,
    VerificationChanged,
)

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from zengine_jupyter.protocol import EngineEvent, LogRecord

__all__ = ["OUTPUT_CHARS", "Update", "UpdateMapper", "tool_kind"]

OUTPUT_CHARS = 4_000
"""A tool's output shown in the client is cut to this many characters (the model got it all)."""

ToolKind = Literal[
    "read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"
]
_KINDS: dict[str, ToolKind] = {
    "Read": "read", "NotebookRead": "read", "Write": "edit", "Edit": "edit",
    "NotebookEdit": "edit", "Glob": "search", "Grep": "search", "Bash": "execute",
    "BashOutput": "execute", "KillShell": "execute", "Verify": "execute", "Task": "think",
    "Lsp": "search", "ReadMcpResource": "fetch", "ListMcpResources": "fetch",
}  # fmt: skip
_PATH_KEYS = ("file_path", "path", "notebook_path")

Update = Any
"""One of the SDK's session update models (``AgentMessageChunk``, ``ToolCallStart``, ...)."""


def tool_kind(tool: str) -> ToolKind:
    """The protocol's kind of one of our tools (MCP tools and the rest: ``other``)."""
    return _KINDS.get(tool, "other")


class UpdateMapper:
    """Engine events of one chat -> ACP updates (it remembers each call's tool and paths)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._calls: dict[str, tuple[str, dict[str, Any]]] = {}

    # ------------------------------------------------------------ live events
    def updates(self, event: EngineEvent) -> list[Update]:
        if isinstance(event, TextStreamed):
            return [update_agent_message_text(event.text)]
        if isinstance(event, ThinkingStreamed):
            return [update_agent_thought_text(event.text)]
        if isinstance(event, ToolCallProposed):
            self._calls[event.call_id] = (event.tool, event.arguments)
            return [self.start(event.call_id, event.tool, event.arguments, event.summary)]
        if isinstance(event, ToolCallApproved | ToolCallStarted):
            return [update_tool_call(event.call_id, status="in_progress")]
        if isinstance(event, ToolCallDenied):
            content: list[Any] = [tool_content(text_block(approval_outcome(event)))]
            content += self.diff_content(event.diff, event.call_id)
            return [update_tool_call(event.call_id, status="failed", content=content)]
        if isinstance(event, ToolCallFinished):
            return [self.finished(event.call_id, event.output, event.is_error, event.diff)]
        if isinstance(event, Notice):
            return [update_agent_thought_text(f"[{event.topic}] {event.text}\n")]
        if isinstance(event, ProviderBusy):
            return [update_agent_thought_text(f"[provider] {event.message}\n")]
        if isinstance(event, CheckRecorded):
            mark = "passed" if event.passed else "failed"
            return [update_agent_thought_text(f"[check {mark}] {event.summary}\n")]
        if isinstance(event, VerificationChanged):
            return [update_agent_thought_text(f"[verification] {event.badge}: {event.reason}\n")]
        if isinstance(event, EngineError):
            hint = f" ({event.hint})" if event.hint else ""
            return [update_agent_message_text(f"\n\nerror: {event.message}{hint}\n")]
        return []

    # ------------------------------------------------------------ pieces
    def start(self, call_id: str, tool: str, arguments: Mapping[str, Any], summary: str) -> Update:
        return start_tool_call(
            call_id,
            f"{tool}: {summary}" if summary else tool,
            kind=tool_kind(tool),
            status="pending",
            locations=self.locations(arguments),
            raw_input=dict(arguments),
        )

    def finished(self, call_id: str, output: str, is_error: bool, diff: str | None) -> Update:
        content: list[Any] = self.diff_content(diff, call_id)
        shown = output if len(output) <= OUTPUT_CHARS else output[:OUTPUT_CHARS] + "\n[cut]"
        if shown:
            content.append(tool_content(text_block(shown)))
        return update_tool_call(
            call_id, status="failed" if is_error else "completed", content=content or None
        )

    def permission_view(
        self, call_id: str, tool: str, title: str, diff: str | None, command: str | None
    ) -> ToolCallUpdate:
        """What a permission request shows: the call, with its diff or its command."""
        arguments = self._calls.get(call_id, (tool, {}))[1]
        content: list[Any] = self.diff_content(diff, call_id)
        if command and not content:
            content.append(tool_content(text_block(command)))
        return ToolCallUpdate(
            tool_call_id=call_id,
            title=title,
            kind=tool_kind(tool),
            status="pending",
            content=content or None,
            locations=self.locations(arguments),
        )

    def diff_content(self, diff: str | None, call_id: str) -> list[Any]:
        if not diff:
            return []
        fallback = ""
        if call_id in self._calls:
            paths = self._paths(self._calls[call_id][1])
            fallback = str(paths[0]) if paths else ""
        return [
            tool_diff_content(self._absolute(h.path), h.new, h.old or None)
            for h in hunks_of(diff, fallback)
        ]

    def locations(self, arguments: Mapping[str, Any]) -> list[ToolCallLocation] | None:
        paths = self._paths(arguments)
        return [ToolCallLocation(path=str(p)) for p in paths] or None

    def _paths(self, arguments: Mapping[str, Any]) -> list[Path]:
        return [
            Path(self._absolute(value))
            for key in _PATH_KEYS
            if isinstance(value := arguments.get(key), str) and value
        ]

    def _absolute(self, path: str) -> str:
        return str(path if Path(path).is_absolute() else self.root / path)

    # ------------------------------------------------------------ a chat's log
    def history(self, records: Iterable[LogRecord]) -> list[Update]:
        """The updates that show a stored chat as it went (``session/load``)."""
        out: list[Update] = []
        for record in records:
            if isinstance(record, MessageRecord) and record.role == "user":
                out.append(update_user_message_text(record.text))
            elif isinstance(record, MessageRecord):
                for block in record.thinking:
                    if block.text:
                        out.append(update_agent_thought_text(block.text))
                if record.text:
                    out.append(update_agent_message_text(record.text))
                for call in record.tool_calls:
                    self._calls[call.id] = (call.name, dict(call.input))
                    out.append(self.start(call.id, call.name, call.input, ""))
            elif isinstance(record, ToolResultRecord):
                out.append(self.finished(
                    record.tool_call_id, record.output, record.is_error, record.diff))  # fmt: skip
        return out
