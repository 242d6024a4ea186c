"""Language-server clients: built-in specs and ``[lsp.servers]`` entries, routing a file to
its server, the lazily starting :class:`LspManager`, the LSP tool's queries and the errors
shown after a write.

What the engine calls: :func:`lsp_query` (the LSP tool, after its Read-rule check),
:func:`diagnostics_after_write` (after each Edit / Write), ``LspManager.status()`` (``/lsp``)
and ``LspManager.aclose()`` when the session ends.

Names load lazily (as ``protocol``'s do): a chat's first request imports the LSP tool's query
types, not the client, the manager or the after-write wait, which load when a server is needed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zengine_jupyter.protocol import lazy_exports as _lazy_exports

if TYPE_CHECKING:
    from zengine_jupyter.integrations.lsp._after_write import (
        MAX_ERROR_LINES,
        WAIT,
        AfterWriteDiagnostics,
        AfterWriteOutcome,
        diagnostics_after_write,
    )
    from zengine_jupyter.integrations.lsp._client import CLIENT_CAPABILITIES, LspClient
    from zengine_jupyter.integrations.lsp._diagnostics import DiagnosticStore, Published
    from zengine_jupyter.integrations.lsp._manager import (
        MAX_RESTARTS,
        LspManager,
        LspManagerOptions,
    )
    from zengine_jupyter.integrations.lsp._progress import ProgressTracker
    from zengine_jupyter.integrations.lsp._query import (
        DIAGNOSTICS_TIMEOUT_S,
        MAX_RESULTS,
        lsp_query,
    )
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

__getattr__, __dir__ = _lazy_exports(
    __name__,
    {
        "BUILTIN_SPECS": "_spec",
        "CLIENT_CAPABILITIES": "_client",
        "DIAGNOSTICS_TIMEOUT_S": "_query",
        "MAX_ERROR_LINES": "_after_write",
        "MAX_RESTARTS": "_manager",
        "MAX_RESULTS": "_query",
        "WAIT": "_after_write",
        "AfterWriteDiagnostics": "_after_write",
        "AfterWriteOutcome": "_after_write",
        "DiagnosticItem": "_results",
        "DiagnosticStore": "_diagnostics",
        "EditItem": "_results",
        "LspAnswer": "_results",
        "LspClient": "_client",
        "LspManager": "_manager",
        "LspManagerOptions": "_manager",
        "LspOperation": "_results",
        "LspQuery": "_results",
        "LspRouter": "_routing",
        "LspServerEntry": "_spec",
        "LspServerSpec": "_spec",
        "ProgressTracker": "_progress",
        "Published": "_diagnostics",
        "Route": "_routing",
        "Severity": "_results",
        "SourceLocation": "_results",
        "default_search_path": "_routing",
        "diagnostics_after_write": "_after_write",
        "lsp_query": "_query",
        "render_status": "_status",
        "spec_from_entry": "_spec",
    },
)
