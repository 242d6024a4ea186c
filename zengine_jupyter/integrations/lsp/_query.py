"""The LSP tool's one entry point: ``await lsp_query(manager, LspQuery(...))``.

The engine's tool wrapper checks Read rules on the path first (it is a reading tool), then
calls this. Every outcome is an :class:`LspAnswer` whose ``text`` the model reads; a missing or
failed server is an answer too (``ok=False``, naming the install command), never an exception.
Rename previews compute the edits and a diff in memory: no file is ever written.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zengine_jupyter.integrations.lsp._convert import (
    LineCache,
    call_locations,
    diagnostic_items,
    edit_items,
    hover_text,
    locations,
    rename_preview_text,
    symbol_locations,
)
from zengine_jupyter.integrations.lsp._results import LspAnswer, LspOperation, LspQuery
from zengine_jupyter.integrations.lsp._text import display_path, path_to_uri
from zengine_jupyter.protocol import (
    JsonRpcClosedError,
    JsonRpcError,
    JsonRpcRemoteError,
    JsonRpcTimeoutError,
    LspError,
)

if TYPE_CHECKING:
    from zengine_jupyter.integrations.lsp._client import LspClient
    from zengine_jupyter.integrations.lsp._manager import LspManager
    from zengine_jupyter.integrations.lsp._results import SourceLocation

__all__ = ["DIAGNOSTICS_TIMEOUT_S", "MAX_RESULTS", "lsp_query"]

MAX_RESULTS = 200
"""Locations listed in one answer; the rest are counted."""
DIAGNOSTICS_TIMEOUT_S = 10.0
"""How long the diagnostics operation waits for the server to analyse the file."""

_PROVIDERS: dict[LspOperation, str | None] = {
    "definition": "definitionProvider",
    "references": "referencesProvider",
    "hover": "hoverProvider",
    "implementation": "implementationProvider",
    "incoming_calls": "callHierarchyProvider",
    "outgoing_calls": "callHierarchyProvider",
    "document_symbols": "documentSymbolProvider",
    "workspace_symbols": "workspaceSymbolProvider",
    "diagnostics": None,
    "rename_preview": "renameProvider",
}
_WHAT: dict[LspOperation, str] = {
    "definition": "definition",
    "references": "references",
    "hover": "hover information",
    "implementation": "implementations",
    "incoming_calls": "callers",
    "outgoing_calls": "callees",
    "document_symbols": "symbols",
    "workspace_symbols": "workspace symbols",
    "diagnostics": "diagnostics",
    "rename_preview": "rename edits",
}
_WORD = re.compile(r"[\w$]+")


async def lsp_query(manager: LspManager, query: LspQuery) -> LspAnswer:
    """Answer one LSP tool call (see the module docstring)."""
    op = query.operation
    path = Path(query.path)
    path = (path if path.is_absolute() else manager.root / path).resolve()
    shown = display_path(path, manager.root)
    if not path.is_file():
        return LspAnswer(op, False, f"{shown} is not a file: the LSP tool needs an existing file")
    if query.line < 1 or query.column < 1:
        return LspAnswer(
            op, False, f"line and column are 1-based (got {query.line}:{query.column})"
        )
    try:
        client = await manager.client_for(path)
    except LspError as exc:
        return LspAnswer(op, False, str(exc))
    name = client.spec.name
    provider = _PROVIDERS[op]
    if provider is not None and not client.supports(provider):
        return LspAnswer(
            op, False, f"{name} does not support {_WHAT[op]} (asked about {shown})", name
        )
    try:
        return await _ask(manager, client, query, path)
    except JsonRpcClosedError as exc:
        text = f"{name} stopped while answering ({exc.message}); it is restarted if it may be"
    except JsonRpcTimeoutError as exc:
        text = str(exc)
    except JsonRpcRemoteError as exc:
        text = f"{name} could not answer {_WHAT[op]} for {shown}: {exc.message}"
    except (JsonRpcError, LspError) as exc:
        text = str(exc)
    return LspAnswer(op, False, text, name)


async def _ask(manager: LspManager, client: LspClient, query: LspQuery, path: Path) -> LspAnswer:
    op, name, timeout = query.operation, client.spec.name, manager.options.request_timeout_s
    cache = LineCache(manager.root)
    if op == "diagnostics":
        published = await client.fresh_diagnostics(path, DIAGNOSTICS_TIMEOUT_S)
        if published is None:
            shown = display_path(path, manager.root)
            text = f"{name} published no diagnostics for {shown} within {DIAGNOSTICS_TIMEOUT_S:g} s"
            return LspAnswer(op, False, text, name)
        items = await asyncio.to_thread(diagnostic_items, published.diagnostics, path, cache)
        shown = display_path(path, manager.root)
        head = (
            f"{name}: {len(items)} diagnostic(s) in {shown}"
            if items
            else f"{name}: no diagnostics in {shown}"
        )
        return LspAnswer(
            op,
            True,
            "\n".join([head, *(d.render() for d in items)]),
            name,
            diagnostics=tuple(items),
        )
    await client.sync(path)
    doc = {"uri": path_to_uri(path)}
    position = await asyncio.to_thread(cache.to_lsp, path, query.line, query.column)
    at = {"textDocument": doc, "position": position}
    line_text = await asyncio.to_thread(cache.line, path, query.line - 1)
    subject = _word_at(line_text, query.column - 1)
    where = f"{display_path(path, manager.root)}:{query.line}:{query.column}" + (
        f" (`{subject}`)" if subject else ""
    )
    result: Any
    if op == "hover":
        result = await client.request("textDocument/hover", at, timeout)
        hover = hover_text(result)
        if hover is None:
            return LspAnswer(op, True, f"{name}: no hover information at {where}", name)
        return LspAnswer(op, True, f"Hover at {where} ({name}):\n{hover}", name, hover=hover)
    if op == "rename_preview":
        if not query.new_name:
            return LspAnswer(op, False, "rename_preview needs new_name", name)
        result = await client.request(
            "textDocument/rename", {**at, "newName": query.new_name}, timeout
        )
        pairs = edit_items(result, cache)
        edits, diff = await asyncio.to_thread(rename_preview_text, pairs, cache)
        if not edits:
            return LspAnswer(op, True, f"{name}: nothing to rename at {where}", name)
        files = len({e.path for e in edits})
        head = (f"Renaming {where} to `{query.new_name}` would make {len(edits)} edit(s) in "
                f"{files} file(s) ({name}; preview only, nothing was changed):")  # fmt: skip
        return LspAnswer(op, True, f"{head}\n{diff}", name, edits=tuple(edits))
    found = await _locations(client, op, at, query, cache, timeout)
    what = _WHAT[op]
    if not found:
        target = {"workspace_symbols": f"`{query.query}`",
                  "document_symbols": display_path(path, manager.root)}.get(op, where)  # fmt: skip
        return LspAnswer(op, True, f"{name}: no {what} found for {target}", name)
    shown_list = found[:MAX_RESULTS]
    if op == "workspace_symbols":
        head = f"Workspace symbols matching {query.query!r} ({name}):"
    elif op == "document_symbols":
        head = f"Symbols in {display_path(path, manager.root)} ({name}):"
    else:
        head = f"{what.capitalize()} for {where} ({name}):"
    lines = [head]
    lines += [loc.render() for loc in shown_list]
    if len(found) > MAX_RESULTS:
        lines.append(f"... and {len(found) - MAX_RESULTS} more")
    return LspAnswer(op, True, "\n".join(lines), name, locations=tuple(found))


async def _locations(
    client: LspClient,
    op: LspOperation,
    at: dict[str, Any],
    query: LspQuery,
    cache: LineCache,
    timeout_s: float,
) -> list[SourceLocation]:
    if op in ("definition", "implementation"):
        result = await client.request(f"textDocument/{op}", at, timeout_s)
        return await asyncio.to_thread(locations, result, cache)
    if op == "references":
        params = {**at, "context": {"includeDeclaration": True}}
        result = await client.request("textDocument/references", params, timeout_s)
        return await asyncio.to_thread(locations, result, cache)
    if op == "document_symbols":
        result = await client.request(
            "textDocument/documentSymbol", {"textDocument": at["textDocument"]}, timeout_s
        )
        return await asyncio.to_thread(symbol_locations, result, at["textDocument"]["uri"], cache)
    if op == "workspace_symbols":
        result = await client.request("workspace/symbol", {"query": query.query}, timeout_s)
        return await asyncio.to_thread(symbol_locations, result, None, cache)
    items = await client.request("textDocument/prepareCallHierarchy", at, timeout_s)
    direction = "incoming" if op == "incoming_calls" else "outgoing"
    found: list[SourceLocation] = []
    for item in items if isinstance(items, list) else []:
        calls = await client.request(f"callHierarchy/{direction}Calls", {"item": item}, timeout_s)
        found += await asyncio.to_thread(call_locations, calls, direction, cache)
    return found


def _word_at(line: str, index: int) -> str | None:
    for match in _WORD.finditer(line):
        if match.start() <= index < match.end():
            return match.group()
    return None
