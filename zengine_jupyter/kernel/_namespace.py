"""The kernel's own read-only tool: what lives in the user's namespace, described safely.

Only introspection that runs no user code: type names, ``len`` of built-in containers,
``shape`` / ``dtype`` of numpy arrays and pandas objects, a DataFrame's dtypes and a capped
head. Sizes are capped.

What the model may read (the ``KernelVariables`` tool) is narrower than what the user may
write into a prompt (``%%agent --vars``, ``values=True``):

- **No text values.** A ``str`` or ``bytes`` is shown by its type and length only, inside
  containers too: a dict shows its length, its keys (short, name-like ones; others by type
  and length) and its values' types, never a value; a list or tuple the types of its items.
  So ``env = dict(os.environ)`` gives the variables' names, never their values.
- **Arrays and Series**: shape (length) and dtype, and the first rows when they hold numbers,
  booleans, dates or durations (an array's preview capped at :data:`ARRAY_CHARS`); a text
  or object array shows none, a Series' text cells are masked as a DataFrame's.
- **DataFrames** (the tool's main use): dtypes, shape, and the first rows with numeric,
  boolean, date and duration cells as they are; every other cell (``str``, ``object``,
  ``category``) as ``<str len N>`` or ``<TypeName>``; a non-numeric index likewise; column
  names past 40 characters or shaped like a token are masked.
- **Refused names**, with a reason the model reads: IPython's history and output names
  (``In``, ``Out``, ``_``, ``__``, ``___``, ``_iN``, ``_N``, ``_i``, ``_ii``, ``_iii``,
  ``_oh``, ``_ih``, ``_dh``, ``_sh``, ``exit``, ``quit``, ``get_ipython``: they hold the
  sources and outputs of the user's cells) and names that look like secrets (a word part
  ``key``, ``token``, ``secret``, ``password``, ``passwd``, ``credential``, ``auth`` ...:
  ``api_key``, ``OPENAI_API_KEY``, ``hfToken``, ``db_password``).

Numbers (``int``, ``float``, ``bool``) are shown as they are, except under a refused name.
``--vars`` is the user's own explicit choice: it keeps showing the start of a string
(:func:`describe_namespace` with ``values=True``) and refuses nothing.
"""

from __future__ import annotations

import importlib
import re
import types
from collections import Counter
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field

from zengine_jupyter.engine import SessionExtension
from zengine_jupyter.engine.tools import Tool, ToolContext, ToolInput, ToolOutput

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

    from zengine_jupyter.engine import Session

__all__ = [
    "MAX_CHARS",
    "KernelVariablesTool",
    "NamespaceExtension",
    "describe_namespace",
    "refusal",
]

MAX_CHARS = 12_000
"""Characters the tool returns at most."""
MAX_NAMES = 200
HEAD_ROWS = 5
ARRAY_CHARS = 1_500
"""Characters of one array's preview at most."""
MAX_KEYS = 20
"""Dict keys shown at most."""
_SCALARS = (int, float, complex, bool, type(None))
_HIDDEN = {"In", "Out", "exit", "quit", "get_ipython", "open"}
_HISTORY = re.compile(
    r"In|Out|_{1,3}|_i{1,3}|_i\d+|_\d+|_oh|_ih|_dh|_sh|_exit_code|exit|quit|get_ipython"
)
"""IPython's history, outputs and shell helpers."""
_SECRET_PARTS = frozenset(
    re.findall(
        r"\w+",
        "key token secret secrets password passwords passwd pwd passphrase credential "
        "credentials cred creds auth authn authz authorization authentication authtoken "
        "apikey apikeys accesskey secretkey privatekey bearer cookie cookies",
    )
)
"""A name with one of these word parts looks like a secret."""
_PLURALS = frozenset({"keys", "tokens"})
_QUALIFIERS = frozenset({"api", "access", "private", "secret", "auth", "bearer", "hf", "openai"})
"""``keys`` / ``tokens`` alone are common data (a tokenizer's output); with one of these
(``api_keys``, ``hf_tokens``) they look like secrets."""
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+")
_KEY_NAME = re.compile(r"[A-Za-z_][\w.\- ]{0,39}")
_TOKEN_SHAPE = re.compile(r"(?=[A-Za-z0-9+/=]*\d)(?=[A-Za-z0-9+/=]*[A-Za-z])[A-Za-z0-9+/=]{16,}")
"""A run of 16+ letters and digits mixed: how API keys look (``sk-...``, ``ghp_...``)."""


def refusal(name: str) -> str | None:
    """Why the model may not read ``name`` (``None``: it may)."""
    if _HISTORY.fullmatch(name):
        return (
            f"{name} is refused: it is IPython's history or output (the user's cells and "
            "their results); ask the user to describe what you need"
        )
    parts = [p.lower() for p in _WORD.findall(name)]
    if any(p in _SECRET_PARTS for p in parts) or (
        any(p in _PLURALS for p in parts) and any(p in _QUALIFIERS for p in parts)
    ):
        return f"{name} is refused: it looks like a secret; ask the user to describe it"
    return None


def _type_name(value: object) -> str:
    cls = type(value)
    module = cls.__module__
    return cls.__qualname__ if module == "builtins" else f"{module}.{cls.__qualname__}"


def _opaque(value: object) -> str:
    """A value without its content: ``<str len 12>``, ``<bytes len 3>``, ``<TypeName>``."""
    if type(value) in (str, bytes, bytearray):
        return f"<{type(value).__name__} len {len(value)}>"  # type: ignore[arg-type]
    return f"<{_type_name(value)}>"


def _label(value: object, *, quote: bool = True) -> str:
    """A dict key or column name: short name-like text as it is, anything else opaque."""
    if isinstance(value, _SCALARS) and type(value) in _SCALARS:
        return repr(value)
    if type(value) is str and _KEY_NAME.fullmatch(value) and not _TOKEN_SHAPE.search(value):
        return repr(value) if quote else value
    return _opaque(value)


def _cell(value: object, values: bool) -> str:
    if isinstance(value, _SCALARS) and type(value) in _SCALARS:
        return repr(value)
    if values and type(value) is str:
        return repr(value[:40] + ("..." if len(value) > 40 else ""))
    return _opaque(value)


def _plain_column(dtype: Any) -> bool:
    """Numbers, booleans, dates and durations are shown; everything else is masked."""
    pdt: Any = importlib.import_module("pandas.api.types")  # only when a DataFrame exists
    return bool(
        pdt.is_numeric_dtype(dtype)
        or pdt.is_datetime64_any_dtype(dtype)
        or pdt.is_timedelta64_dtype(dtype)
    )


def _frame_head(frame: Any, values: bool) -> str:
    """The first rows of the first 20 columns, formatted by pandas; numbers, booleans, dates
    and durations as they are, other cells (and a non-numeric index) by type and length."""
    pd: Any = importlib.import_module("pandas")
    shown = frame.head(HEAD_ROWS).iloc[:, :20]
    cells: dict[int, list[Any]] = {}
    for index in range(shown.shape[1]):
        series = shown.iloc[:, index]
        plain = _plain_column(series.dtype)
        cells[index] = series.tolist() if plain else [_cell(v, values) for v in series.tolist()]
    rows = shown.index.tolist()
    if not _plain_column(shown.index.dtype):
        rows = [_cell(v, values) for v in rows]
    table = pd.DataFrame(cells, index=rows)
    table.columns = [_label(c, quote=False) for c in shown.columns]
    text: str = table.to_string(max_colwidth=40)
    if frame.shape[1] > 20:
        text += f"\n({frame.shape[1] - 20} more columns)"
    return text


def _series_head(series: Any, values: bool) -> str:
    """A Series' first rows: numbers, booleans, dates as they are, other cells masked."""
    shown = series.head(HEAD_ROWS)
    plain = _plain_column(shown.dtype)
    cells = [repr(v) if plain else _cell(v, values) for v in shown.tolist()]
    rows = shown.index.tolist()
    if not _plain_column(shown.index.dtype):
        rows = [_cell(v, values) for v in rows]
    lines = [f"  {r}: {c}" for r, c in zip(rows, cells, strict=True)]
    return "\n" + "\n".join(lines) if lines else ""


def _array_head(array: Any) -> str:
    """An array's first rows (capped) when its values are numbers, booleans, dates or
    durations; text and object arrays show none (they may hold anything)."""
    if array.dtype.kind not in "biufcmM":
        return " (values not shown: not numbers)"
    np: Any = importlib.import_module("numpy")
    rows = HEAD_ROWS if array.ndim <= 2 else 1  # an image stack: its first image
    with np.printoptions(threshold=60, edgeitems=3, linewidth=100):
        text = repr(array[:rows] if array.ndim else array)
    if len(text) > ARRAY_CHARS:
        text = text[:ARRAY_CHARS] + " ..."
    first = f"first {min(rows, len(array))} rows" if array.ndim else "value"
    return f"\n  {first}: " + text.replace("\n", "\n  ")


def _items(value: Iterable[object]) -> str:
    counts = Counter(type(v).__name__ for _, v in zip(range(1000), value, strict=False))
    return ", ".join(f"{n} {t}" for t, n in counts.most_common(5))


def _mapping(value: dict[Any, Any]) -> str:
    keys = [_label(k) for k in list(value)[:MAX_KEYS]]
    more = f", ... ({len(value) - MAX_KEYS} more)" if len(value) > MAX_KEYS else ""
    kinds = _items(value.values())
    return f"keys {', '.join(keys)}{more}" + (f"; values: {kinds}" if kinds else "")


def _describe(name: str, value: object, values: bool) -> str:
    cls = type(value)
    kind = _type_name(value)
    module = cls.__module__.split(".")[0]
    if isinstance(value, types.ModuleType):
        return f"{name}: module {value.__name__}"
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, type)):
        return f"{name}: {kind} {getattr(value, '__qualname__', '')}"
    if module == "pandas" and cls.__name__ == "DataFrame":
        columns = list(value.dtypes.items())[:50]  # type: ignore[attr-defined]
        dtypes = ", ".join(f"{_label(c, quote=False)}: {t}" for c, t in columns)
        return f"{name}: DataFrame shape {value.shape}\n  dtypes: {dtypes}\n" + "\n".join(  # type: ignore[attr-defined]
            "  " + line for line in _frame_head(value, values).splitlines()
        )
    if module == "pandas" and cls.__name__ == "Series":
        return f"{name}: Series length {len(value)} dtype {value.dtype}" + _series_head(  # type: ignore[arg-type, attr-defined]
            value, values
        )
    if module == "numpy" and cls.__name__ == "ndarray":
        return f"{name}: ndarray shape {value.shape} dtype {value.dtype}" + _array_head(value)  # type: ignore[attr-defined]
    if type(value) in _SCALARS:
        return f"{name}: {kind} = {value!r}"
    if type(value) in (str, bytes, bytearray):
        if values:
            return f"{name}: {kind} length {len(value)} = {value[:80]!r}"  # type: ignore[index, arg-type]
        return f"{name}: {kind} length {len(value)} (text is not shown)"  # type: ignore[arg-type]
    if type(value) is dict:
        return f"{name}: dict length {len(value)}; {_mapping(value)}"
    if type(value) in (list, tuple, set, frozenset):
        items = _items(value)  # type: ignore[arg-type]
        return f"{name}: {kind} length {len(value)}" + (f" of {items}" if items else "")  # type: ignore[arg-type]
    return f"{name}: {kind}"


def describe_namespace(
    namespace: Mapping[str, Any], names: list[str] | None = None, *, values: bool = False
) -> str:
    """The variables in ``namespace`` (or only ``names``), one description each, capped.

    ``values=False`` (the model's tool): no text values and refused names (see the module
    docstring); ``values=True`` (the user's ``--vars``): the start of strings, nothing refused.
    """
    wanted = names or [n for n in namespace if not n.startswith("_") and n not in _HIDDEN]
    lines: list[str] = []
    for name in wanted[:MAX_NAMES]:
        reason = None if values else refusal(name)
        if reason is not None:
            lines.append(reason)
            continue
        if name not in namespace:
            lines.append(f"{name}: not defined")
            continue
        try:
            lines.append(_describe(name, namespace[name], values))
        except Exception as exc:  # a broken object: say so, never fail the tool
            lines.append(f"{name}: {_type_name(namespace[name])} (not described: "
                         f"{type(exc).__name__})")  # fmt: skip
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
        "Describe the live variables of the user's Jupyter kernel: names, types, lengths, "
        "shapes; DataFrames with dtypes and the first rows (numbers shown, text cells by "
        "length). Text values, IPython's history (In, Out, _iN, _N) and names that look "
        "like secrets are not shown: ask the user about those. Read-only; runs no code."
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
