"""Language-server clients: built-in specs and ``[lsp.servers]`` entries, routing a file to
its server, the lazily starting :class:`LspManager`, the LSP tool's queries and the errors
shown after a write.

What the engine calls: :func:`lsp_query` (the LSP tool, after its Read-rule check),
:func:`diagnostics_after_write` (after each Edit / Write), ``LspManager.status()`` (``/lsp``)
and ``LspManager.aclose()`` when the session ends.
"""

from zengine_jupyter.integrations.lsp._after_write import (
    MAX_ERROR_LINES,
    WAIT,
    AfterWriteDiagnostics,
    AfterWriteOutcome,
    diagnostics_after_write,
)
from zengine_jupyter.integrations.lsp._client import CLIENT_CAPABILITIES, LspClient
from zengine_jupyter.integrations.lsp._diagnostics import DiagnosticStore, Published
from zengine_jupyter.integrations.lsp._manager import MAX_RESTARTS, LspManager, LspManagerOptions
from zengine_jupyter.integrations.lsp._progress import ProgressTracker
from zengine_jupyter.integrations.lsp._query import DIAGNOSTICS_TIMEOUT_S, MAX_RESULTS, lsp_query
from zengine_jupyter.integrations.lsp._results import (
    DiagnosticItem,
    EditItem,
    LspAnswer,
    LspOperation,
    LspQuery,
    Severity,
    SourceLocation,
)
from zengine_jupyter.integrations.lsp._routing import LspRouter, Route, default_search_path
from zengine_jupyter.integrations.lsp._spec import (
    BUILTIN_SPECS,
    LspServerEntry,
    LspServerSpec,
    spec_from_entry,
)
from zengine_jupyter.integrations.lsp._status import render_status

__all__ = [
    "BUILTIN_SPECS",
    "CLIENT_CAPABILITIES",
    "DIAGNOSTICS_TIMEOUT_S",
    "MAX_ERROR_LINES",
    "MAX_RESTARTS",
    "MAX_RESULTS",
    "WAIT",
    "AfterWriteDiagnostics",
    "AfterWriteOutcome",
    "DiagnosticItem",
    "DiagnosticStore",
    "EditItem",
    "LspAnswer",
    "LspClient",
    "LspManager",
    "LspManagerOptions",
    "LspOperation",
    "LspQuery",
    "LspRouter",
    "LspServerEntry",
    "LspServerSpec",
    "ProgressTracker",
    "Published",
    "Route",
    "Severity",
    "SourceLocation",
    "default_search_path",
    "diagnostics_after_write",
    "lsp_query",
    "render_status",
    "spec_from_entry",
]
