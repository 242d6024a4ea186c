"""What a hook command receives on stdin: one JSON object per engine event."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict

from zengine_jupyter.protocol._data_model import DataModel

__all__ = ["HOOK_EVENTS", "HookEventName", "HookPayload"]

HookEventName = Literal[
    "session_start", "user_prompt_submit", "pre_tool_use", "post_tool_use", "stop"
]

HOOK_EVENTS: tuple[HookEventName, ...] = (
    "session_start",
    "user_prompt_submit",
    "pre_tool_use",
    "post_tool_use",
    "stop",
)
"""Every event a hook can be attached to, in the order they happen in a turn."""


class HookPayload(DataModel):
    """The JSON a hook reads on stdin. Fields that do not apply to the event are ``null``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    event: HookEventName
    session_id: str
    project_dir: str
    prompt: str | None = None
    """``user_prompt_submit``: the text the user sent."""
    tool_name: str | None = None
    """pre_tool_use / post_tool_use: the tool, e.g. ``Bash`` or ``mcp__github__create_issue``."""
    tool_input: dict[str, Any] | None = None
    tool_output: str | None = None
    """``post_tool_use``: the tool's result text (already truncated by the engine)."""
    is_error: bool | None = None
    """``post_tool_use``: whether the tool reported an error."""
