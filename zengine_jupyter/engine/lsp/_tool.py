"""The LSP tool: a reading tool (Read rules apply to its file) over ``lsp_query``.

Results in files a Read rule denies are left out of the answer, so a question about an allowed
file cannot show the lines of a denied one (references, symbols, callers, rename previews).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from pydantic import Field

from zengine_jupyter.engine.tools import (
    GateReads,
    Tool,
    ToolContext,
    ToolInput,
    ToolKind,
    ToolOutput,
)
from zengine_jupyter.integrations.lsp import (
    MAX_RESULTS,
    LspAnswer,
    LspOperation,
    LspQuery,
    lsp_query,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from zengine_jupyter.integrations.lsp import LspManager
    from zengine_jupyter.policy import PermissionGate

__all__ = ["LspInput", "LspTool"]


class LspInput(ToolInput):
    operation: LspOperation = Field(
        description=(
            "definition, references, hover, implementation, incoming_calls (callers), "
            "outgoing_calls (callees), document_symbols, workspace_symbols, diagnostics, "
            "rename_preview (shows the edits, never applies them)"
        )
    )
    path: str = Field(
        description="The file, relative to the project (for workspace_symbols: any file of "
        "that language)"
    )
    line: int = Field(1, ge=1, description="1-based line of the symbol (position operations)")
    column: int = Field(1, ge=1, description="1-based column of the symbol (characters)")
    query: str = Field("", description="workspace_symbols: the name, or part of it")
    new_name: str = Field("", description="rename_preview: the new name")


class LspTool(Tool[LspInput]):
    """Asks the project's language server (started on first use) about code."""

    name: ClassVar[str] = "LSP"
    kind: ClassVar[ToolKind] = "read"
    description: ClassVar[str] = (
        "Ask the language server about code, as an editor would: where a symbol is defined, "
        "its references, hover text (type, docs), implementations, callers and callees, the "
        "symbols of a file or the workspace, the file's diagnostics, or what a rename would "
        "change (a preview: nothing is written). Lines and columns are 1-based."
    )
    Input = LspInput

    def __init__(
        self, manager: Callable[[], LspManager], gate: Callable[[], PermissionGate]
    ) -> None:
        self._manager = manager
        self._gate = gate

    def paths(self, args: LspInput, ctx: ToolContext) -> list[Path]:
        return [ctx.resolve(args.path)]

    async def run(self, args: LspInput, ctx: ToolContext) -> ToolOutput:
        query = LspQuery(
            operation=args.operation,
            path=str(ctx.resolve(args.path)),
            line=args.line,
            column=args.column,
            query=args.query,
            new_name=args.new_name,
        )
        manager = self._manager()
        answer = _without_denied(await lsp_query(manager, query), self._gate(), manager.root)
        return ToolOutput(answer.text, is_error=not answer.ok)


def _without_denied(answer: LspAnswer, gate: PermissionGate, root: Path) -> LspAnswer:
    """``answer`` without the results in files Read rules deny (noted by count)."""

    decide = GateReads(gate)

    def denied(shown: str) -> bool:
        path = Path(shown)
        return decide(path if path.is_absolute() else root / path) == "deny"

    if answer.edits and any(denied(e.path) for e in answer.edits):
        files = sorted({e.path for e in answer.edits if denied(e.path)})
        text = (f"The rename would also change {len(files)} file(s) that Read rules deny; "
                "the preview is withheld.")  # fmt: skip
        return replace(answer, ok=False, text=text, edits=())
    kept = tuple(loc for loc in answer.locations if not denied(loc.path))
    left_out = len(answer.locations) - len(kept)
    if not left_out:
        return answer
    lines = [answer.text.splitlines()[0], *(loc.render() for loc in kept[:MAX_RESULTS])]
    if len(kept) > MAX_RESULTS:
        lines.append(f"... and {len(kept) - MAX_RESULTS} more")
    lines.append(f"({left_out} result(s) in files that Read rules deny were left out)")
    return replace(answer, text="\n".join(lines), locations=kept)
