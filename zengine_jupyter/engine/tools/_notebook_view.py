"""How a notebook looks to the model: each cell with its id, type and (capped) outputs."""

from __future__ import annotations

from typing import Any

from zengine_jupyter.protocol import ToolError

__all__ = ["load_notebook", "render_notebook"]

_OUTPUT_CHARS = 2000


def load_notebook(text: str, name: str) -> Any:
    """Parse a notebook's text (the file ``name``) as nbformat v4; a broken one is a
    :class:`ToolError` naming it. The caller reads the file (through the safe IO).

    nbformat is imported here, not with the engine: through jsonschema it costs seconds,
    which every chat would otherwise pay before its first turn."""
    import nbformat

    try:
        return nbformat.reads(text, as_version=4)
    except Exception as exc:  # nbformat raises many kinds for a damaged file
        raise ToolError(f"{name} is not a readable notebook: {exc}") from None


def render_notebook(text: str, name: str) -> str:
    nb = load_notebook(text, name)
    parts = [f"{name}: {len(nb.cells)} cells (nbformat {nb.nbformat}.{nb.nbformat_minor})"]
    for index, cell in enumerate(nb.cells):
        parts.append(f"--- cell {index} [{cell.cell_type}] id={cell.get('id', '?')}")
        parts.append(cell.source)
        for output in cell.get("outputs", []):
            parts.append(_render_output(output))
    return "\n".join(parts)


def _render_output(output: Any) -> str:
    kind = output.get("output_type")
    if kind == "stream":
        text = str(output.get("text", ""))
    elif kind == "error":
        text = f"{output.get('ename')}: {output.get('evalue')}"
    else:
        data = output.get("data", {})
        text = str(data.get("text/plain", "")) or f"<{', '.join(data)}>"
    if len(text) > _OUTPUT_CHARS:
        text = text[:_OUTPUT_CHARS] + f" [... {len(text) - _OUTPUT_CHARS} more chars]"
    return f"[output {kind}] {text}"
