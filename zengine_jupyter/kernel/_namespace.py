"""The kernel's own read-only tool: what lives in the user's namespace, described safely.

Only introspection that runs no user code: type names, ``len`` of built-in containers,
``shape`` / ``dtype`` of numpy arrays and pandas objects, a DataFrame's dtypes and a capped
head whose non-builtin cells are shown by type name. Sizes are capped.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field

from zengine_jupyter.engine._extension import SessionExtension
from zengine_jupyter.engine.tools import Tool, ToolContext, ToolInput, ToolOutput

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from zengine_jupyter.engine import Session

__all__ = ["MAX_CHARS", "KernelVariablesTool", "NamespaceExtension", "describe_namespace"]

MAX_CHARS = 12_000
"""Characters the tool returns at most."""
MAX_NAMES = 200
HEAD_ROWS = 5
_SCALARS = (int, float, complex, bool, type(None))
_HIDDEN = {"In", "Out", "exit", "quit", "get_ipython", "open"}


def _type_name(value: object) -> str:
    cls = type(value)
    module = cls.__module__
    return cls.__qualname__ if module == "builtins" else f"{module}.{cls.__qualname__}"


def _safe_cell(value: object) -> str:
    if isinstance(value, _SCALARS) and type(value) in (*_SCALARS, type(None)):
        return repr(value)
    if type(value) is str:
        return repr(value[:40] + ("..." if len(value) > 40 else ""))
    return f"<{_type_name(value)}>"


def _frame_head(frame: Any) -> str:
    """The first rows, formatted by pandas; object cells only by their type name."""
    head = frame.head(HEAD_ROWS).copy()
    for column in head.columns:
        if str(head[column].dtype) == "object":
            head[column] = [_safe_cell(v) for v in head[column].tolist()]
    text: str = head.to_string(max_cols=20, max_colwidth=40)
    return text


def _describe(name: str, value: object) -> str:
    cls = type(value)
    kind = _type_name(value)
    module = cls.__module__.split(".")[0]
    if isinstance(value, types.ModuleType):
        return f"{name}: module {value.__name__}"
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, type)):
        return f"{name}: {kind} {getattr(value, '__qualname__', '')}"
    if module == "pandas" and cls.__name__ == "DataFrame":
        dtypes = ", ".join(f"{c}: {t}" for c, t in list(value.dtypes.items())[:50])  # type: ignore[attr-defined]
        return f"{name}: DataFrame shape {value.shape}\n  dtypes: {dtypes}\n" + "\n".join(  # type: ignore[attr-defined]
            "  " + line for line in _frame_head(value).splitlines()
        )
    if module == "pandas" and cls.__name__ == "Series":
        return f"{name}: Series length {len(value)} dtype {value.dtype}"  # type: ignore[arg-type, attr-defined]
    if module == "numpy" and cls.__name__ == "ndarray":
        return f"{name}: ndarray shape {value.shape} dtype {value.dtype}"  # type: ignore[attr-defined]
    if type(value) in _SCALARS:
        return f"{name}: {kind} = {value!r}"
    if type(value) in (str, bytes):
        text = repr(value[:80])  # type: ignore[index]
        return f"{name}: {kind} length {len(value)} = {text}"  # type: ignore[arg-type]
    if type(value) in (list, tuple, dict, set, frozenset):
        return f"{name}: {kind} length {len(value)}"  # type: ignore[arg-type]
    return f"{name}: {kind}"


def describe_namespace(namespace: Mapping[str, Any], names: list[str] | None = None) -> str:
    """The variables in ``namespace`` (or only ``names``), one description each, capped."""
    wanted = names or [n for n in namespace if not n.startswith("_") and n not in _HIDDEN]
    lines: list[str] = []
    for name in wanted[:MAX_NAMES]:
        if name not in namespace:
            lines.append(f"{name}: not defined")
            continue
        try:
            lines.append(_describe(name, namespace[name]))
        except Exception as exc:  # a broken object: say so, never fail the tool
            lines.append(f"{name}: {_type_name(namespace[name])} (not described: {exc!r:.80})")
    if len(wanted) > MAX_NAMES:
        lines.append(f"... and {len(wanted) - MAX_NAMES} more names")
    text = "\n".join(lines) or "the namespace holds no user variables"
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS] + f"\n... (cut at {MAX_CHARS} characters)"
    return text


class _Input(ToolInput):
    names: list[str] | None = Field(
        default=None, description="Variables to describe; omit for every user variable."
    )


class KernelVariablesTool(Tool[_Input]):
    """Reads the live namespace of the notebook's kernel."""

    name: ClassVar[str] = "KernelVariables"
    kind: ClassVar[Any] = "read"
    description: ClassVar[str] = (
        "Describe the live variables of the user's Jupyter kernel: names, types, shapes; "
        "DataFrames with dtypes and the first rows. Read-only; runs no code."
    )
    Input = _Input

    def __init__(self, namespace: Callable[[], Mapping[str, Any]]) -> None:
        self._namespace = namespace

    async def run(self, args: _Input, ctx: ToolContext) -> ToolOutput:
        return ToolOutput(describe_namespace(self._namespace(), args.names))


class NamespaceExtension(SessionExtension):
    """Adds :class:`KernelVariablesTool` to a chat opened by the kernel."""

    name = "kernel-namespace"

    def __init__(self, namespace: Callable[[], Mapping[str, Any]]) -> None:
        self._namespace = namespace

    async def start(self, session: Session) -> None:
        tool = KernelVariablesTool(self._namespace)
        session.tools[tool.name] = tool
