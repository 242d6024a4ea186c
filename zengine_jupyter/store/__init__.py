"""SessionStore: one folder per chat, append-only log, crash repair and replay.

See ``docs/sessions.md`` for the folder layout, the guarantees and the v1 format.
"""

from zengine_jupyter.store._files import atomic_write
from zengine_jupyter.store._legacy import convert_v1
from zengine_jupyter.store._lines import (
    LOG_RECORD,
    LogScan,
    SkippedLine,
    scan_bytes,
    scan_file,
    validate_line,
)
from zengine_jupyter.store._meta import meta_from_state
from zengine_jupyter.store._replay import (
    LastTurn,
    Replayer,
    ResumeState,
    TokenTotals,
    WorkingItem,
    replay,
)
from zengine_jupyter.store._store import SessionSnapshot, SessionStore
from zengine_jupyter.store._writer import OpenReport, SessionWriter, TailRepair

__all__ = [
    "LOG_RECORD",
    "LastTurn",
    "LogScan",
    "OpenReport",
    "Replayer",
    "ResumeState",
    "SessionSnapshot",
    "SessionStore",
    "SessionWriter",
    "SkippedLine",
    "TailRepair",
    "TokenTotals",
    "WorkingItem",
    "atomic_write",
    "convert_v1",
    "meta_from_state",
    "replay",
    "scan_bytes",
    "scan_file",
    "validate_line",
]
