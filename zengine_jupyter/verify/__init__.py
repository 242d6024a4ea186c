"""Recorded verification: discovery, check runs, freshness, selection, the badge, the modes.

The engine calls these; nothing here decides when to run what on its own.
"""

from zengine_jupyter.verify._assess import assess, is_fresh, latest_records, unsaved_notebooks
from zengine_jupyter.verify._modes import (
    DEFAULT_MAX_CONTINUATIONS,
    StopAction,
    StopDecision,
    StopState,
    decide_stop,
)
from zengine_jupyter.verify._run import (
    TAIL_BYTES,
    CheckInvocation,
    CheckOutput,
    CheckRunner,
    DirectRunner,
    RunCheckOptions,
    output_tail,
    resolve_invocation,
    run_check,
)
from zengine_jupyter.verify._select import select_checks
from zengine_jupyter.verify.discovery import discover_checks, discover_checks_sync, merge_checks

__all__ = [
    "DEFAULT_MAX_CONTINUATIONS",
    "TAIL_BYTES",
    "CheckInvocation",
    "CheckOutput",
    "CheckRunner",
    "DirectRunner",
    "RunCheckOptions",
    "StopAction",
    "StopDecision",
    "StopState",
    "assess",
    "decide_stop",
    "discover_checks",
    "discover_checks_sync",
    "is_fresh",
    "latest_records",
    "merge_checks",
    "output_tail",
    "resolve_invocation",
    "run_check",
    "select_checks",
    "unsaved_notebooks",
]
