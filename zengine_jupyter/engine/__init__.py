"""The agent: a chat (``Session``), its turn loop, the built-in tools and the approvals it asks.

Frontends open a :class:`Session`, ``subscribe()`` to its events and ``submit()`` text;
they answer approvals through an :class:`ApprovalPort`.

Names load lazily (as ``protocol``'s do): a first ``%%agent`` turn imports the modules its
chat uses, not the setup, rewind and chat-admin ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zengine_jupyter.protocol import lazy_exports as _lazy_exports

if TYPE_CHECKING:
    from zengine_jupyter.engine._bus import EventBus, Subscription
    from zengine_jupyter.engine._catalog import CatalogExtension, SharedCatalog, open_catalog
    from zengine_jupyter.engine._chat_admin import delete_chat, rename_chat
    from zengine_jupyter.engine._chat_options import allowed_modes, chat_options
    from zengine_jupyter.engine._checkpoints import CheckpointsExtension, gc_notice, retention_of
    from zengine_jupyter.engine._command_help import COMMAND_HELP, describe_command
    from zengine_jupyter.engine._commands import is_reserved_command
    from zengine_jupyter.engine._compaction import (
        COMPACT_SYSTEM,
        LATEST_HEADER,
        SUMMARY_HEADER,
        compact,
        render_transcript,
    )
    from zengine_jupyter.engine._context import (
        CHARS_PER_TOKEN,
        DEFAULT_CONTEXT_WINDOW,
        ContextGauge,
        estimate_tokens,
        window_of,
    )
    from zengine_jupyter.engine._custom_commands import CustomCommand, parse_command_file
    from zengine_jupyter.engine._extension import CommandResult, SessionExtension, SlashCommand
    from zengine_jupyter.engine._outcome import approval_outcome
    from zengine_jupyter.engine._parts import SessionParts
    from zengine_jupyter.engine._ports import ApprovalPort, CellExecutor, FixedApprovals
    from zengine_jupyter.engine._resume import RESUME_REASON, repair_on_resume, resume_repairs
    from zengine_jupyter.engine._rewind import (
        describe_other_chats,
        describe_rewind,
        find_point,
        points_from_log,
        preview_points,
        rewind,
        rewind_chat,
        rewind_points,
        with_other_chats,
    )
    from zengine_jupyter.engine._roles import ModelRoles
    from zengine_jupyter.engine._session import Session, SessionOptions, TurnInProgressError
    from zengine_jupyter.engine._setup import (
        setup_find_local,
        setup_models,
        setup_save,
        setup_state,
        setup_store_key,
        setup_test,
    )
    from zengine_jupyter.engine._titles import TITLE_CHARS, TITLE_SYSTEM, clean_title
    from zengine_jupyter.engine._turn import MAX_STEPS, TurnOutcome
    from zengine_jupyter.engine._unused import (
        check_project_folder,
        close_discarding_unused,
        is_unused,
        never_reached_model,
    )
    from zengine_jupyter.engine._wellformed import (
        INTERRUPTED,
        MISSING_START,
        RequestMessage,
        build_request,
        check_request,
    )
    from zengine_jupyter.engine._wiring import provider_options

__all__ = [
    "CHARS_PER_TOKEN",
    "COMMAND_HELP",
    "COMPACT_SYSTEM",
    "DEFAULT_CONTEXT_WINDOW",
    "INTERRUPTED",
    "LATEST_HEADER",
    "MAX_STEPS",
    "MISSING_START",
    "RESUME_REASON",
    "SUMMARY_HEADER",
    "TITLE_CHARS",
    "TITLE_SYSTEM",
    "ApprovalPort",
    "CatalogExtension",
    "CellExecutor",
    "CheckpointsExtension",
    "CommandResult",
    "ContextGauge",
    "CustomCommand",
    "EventBus",
    "FixedApprovals",
    "ModelRoles",
    "RequestMessage",
    "Session",
    "SessionExtension",
    "SessionOptions",
    "SessionParts",
    "SharedCatalog",
    "SlashCommand",
    "Subscription",
    "TurnInProgressError",
    "TurnOutcome",
    "allowed_modes",
    "approval_outcome",
    "build_request",
    "chat_options",
    "check_project_folder",
    "check_request",
    "clean_title",
    "close_discarding_unused",
    "compact",
    "delete_chat",
    "describe_command",
    "describe_other_chats",
    "describe_rewind",
    "estimate_tokens",
    "find_point",
    "gc_notice",
    "is_reserved_command",
    "is_unused",
    "never_reached_model",
    "open_catalog",
    "parse_command_file",
    "points_from_log",
    "preview_points",
    "provider_options",
    "rename_chat",
    "render_transcript",
    "repair_on_resume",
    "resume_repairs",
    "retention_of",
    "rewind",
    "rewind_chat",
    "rewind_points",
    "setup_find_local",
    "setup_models",
    "setup_save",
    "setup_state",
    "setup_store_key",
    "setup_test",
    "window_of",
    "with_other_chats",
]

__getattr__, __dir__ = _lazy_exports(
    __name__,
    {
        "ApprovalPort": "_ports",
        "CHARS_PER_TOKEN": "_context",
        "COMMAND_HELP": "_command_help",
        "COMPACT_SYSTEM": "_compaction",
        "CatalogExtension": "_catalog",
        "CellExecutor": "_ports",
        "CheckpointsExtension": "_checkpoints",
        "CommandResult": "_extension",
        "ContextGauge": "_context",
        "CustomCommand": "_custom_commands",
        "DEFAULT_CONTEXT_WINDOW": "_context",
        "EventBus": "_bus",
        "FixedApprovals": "_ports",
        "INTERRUPTED": "_wellformed",
        "LATEST_HEADER": "_compaction",
        "MAX_STEPS": "_turn",
        "MISSING_START": "_wellformed",
        "ModelRoles": "_roles",
        "RESUME_REASON": "_resume",
        "RequestMessage": "_wellformed",
        "SUMMARY_HEADER": "_compaction",
        "Session": "_session",
        "SessionExtension": "_extension",
        "SessionOptions": "_session",
        "SessionParts": "_parts",
        "SharedCatalog": "_catalog",
        "SlashCommand": "_extension",
        "Subscription": "_bus",
        "TITLE_CHARS": "_titles",
        "TITLE_SYSTEM": "_titles",
        "TurnInProgressError": "_session",
        "TurnOutcome": "_turn",
        "allowed_modes": "_chat_options",
        "approval_outcome": "_outcome",
        "build_request": "_wellformed",
        "chat_options": "_chat_options",
        "check_project_folder": "_unused",
        "check_request": "_wellformed",
        "clean_title": "_titles",
        "close_discarding_unused": "_unused",
        "compact": "_compaction",
        "delete_chat": "_chat_admin",
        "describe_command": "_command_help",
        "describe_other_chats": "_rewind",
        "describe_rewind": "_rewind",
        "estimate_tokens": "_context",
        "find_point": "_rewind",
        "gc_notice": "_checkpoints",
        "is_reserved_command": "_commands",
        "is_unused": "_unused",
        "never_reached_model": "_unused",
        "open_catalog": "_catalog",
        "parse_command_file": "_custom_commands",
        "points_from_log": "_rewind",
        "preview_points": "_rewind",
        "provider_options": "_wiring",
        "rename_chat": "_chat_admin",
        "render_transcript": "_compaction",
        "repair_on_resume": "_resume",
        "resume_repairs": "_resume",
        "retention_of": "_checkpoints",
        "rewind": "_rewind",
        "rewind_chat": "_rewind",
        "rewind_points": "_rewind",
        "setup_find_local": "_setup",
        "setup_models": "_setup",
        "setup_save": "_setup",
        "setup_state": "_setup",
        "setup_store_key": "_setup",
        "setup_test": "_setup",
        "window_of": "_context",
        "with_other_chats": "_rewind",
    },
)
