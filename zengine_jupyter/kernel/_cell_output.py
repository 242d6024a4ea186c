"""Rich outputs reduced to what a model reads: text, and PNG/JPEG images with their sizes.

A display bundle (``{"text/plain": ..., "text/html": ..., "image/png": ...}``) becomes an image
when it has one (its ``text/plain``, such as ``<Figure size 640x480 with 1 Axes>``, is then
left out), else its plain text, else its HTML as text (tags dropped, cells tab-separated, rows
on lines), else markdown or JSON as written. A last expression that is a DataFrame or an array
is described by the object (shape, dtypes, first rows) rather than its HTML.
"""

from __future__ import annotations

import base64
import html
import importlib
import json
import re
import struct
from typing import Any

from zengine_jupyter.protocol import CellImage

__all__ = ["HEAD_ROWS", "describe_value", "html_text", "image_of", "reduce_bundle"]

HEAD_ROWS = 5
_TAG = re.compile(r"<[^>]+>")
_BLOCK_END = re.compile(r"</(?:tr|p|div|h\d|li|table|thead|tbody|caption)\s*>|<br\s*/?>", re.I)
_CELL_END = re.compile(r"</t[dh]\s*>", re.I)
_DROP = re.compile(r"<(style|script)\b.*?</\1\s*>", re.I | re.S)


def html_text(markup: str) -> str:
    """HTML as plain text: scripts and styles dropped, table cells tab-separated."""
    text = _DROP.sub("", markup)
    text = _CELL_END.sub("\t", text)
    text = _BLOCK_END.sub("\n", text)
    text = html.unescape(_TAG.sub("", text))
    lines = [line.strip() for line in text.splitlines()]
    return "\n".join(line for line in lines if line)


def _png_size(data: bytes) -> tuple[int | None, int | None]:
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return int(width), int(height)
    return None, None


def _jpeg_size(data: bytes) -> tuple[int | None, int | None]:
    at = 2
    while at + 9 < len(data) and data[at] == 0xFF:
        marker, length = data[at + 1], struct.unpack(">H", data[at + 2 : at + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2):
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])
            return int(width), int(height)
        at += 2 + length
    return None, None


def image_of(mime: str, payload: Any) -> CellImage | None:
    """A bundle's ``image/png`` / ``image/jpeg`` entry (base64 text or bytes) as an image."""
    if mime not in ("image/png", "image/jpeg"):
        return None
    try:
        data = payload if isinstance(payload, bytes) else base64.b64decode(payload)
    except (ValueError, TypeError):
        return None
    width, height = _png_size(data) if mime == "image/png" else _jpeg_size(data)
    return CellImage(media_type=mime, data=data, width=width, height=height)  # type: ignore[arg-type]


def reduce_bundle(data: dict[str, Any]) -> tuple[str | None, CellImage | None]:
    """One display bundle: its image if it has one, else its text."""
    for mime in ("image/png", "image/jpeg"):
        if mime in data and (image := image_of(mime, data[mime])) is not None:
            return None, image
    if isinstance(data.get("text/plain"), str):
        return data["text/plain"], None
    if isinstance(data.get("text/html"), str):
        return html_text(data["text/html"]), None
    if isinstance(data.get("text/markdown"), str):
        return data["text/markdown"], None
    if "application/json" in data:
        return json.dumps(data["application/json"], default=str)[:4000], None
    kinds = ", ".join(sorted(data)) or "nothing"
    return f"[an output of type {kinds}: not readable as text]", None


def describe_value(value: object) -> str | None:
    """A DataFrame, Series or array by its shape, dtypes and first rows; else ``None`` (the
    formatter's text is used). The values are the code's own result, shown as pandas prints
    them: the user approved this code."""
    cls = type(value)
    module = cls.__module__.split(".")[0]
    if module == "pandas" and cls.__name__ == "DataFrame":
        frame: Any = value
        dtypes = ", ".join(f"{c}: {t}" for c, t in list(frame.dtypes.items())[:50])
        head = frame.head(HEAD_ROWS).to_string(max_cols=20, max_colwidth=40)
        return f"DataFrame shape {frame.shape}\ndtypes: {dtypes}\nfirst rows:\n{head}"
    if module == "pandas" and cls.__name__ == "Series":
        series: Any = value
        return (f"Series {series.name!r} length {len(series)} dtype {series.dtype}\n"
                f"first rows:\n{series.head(HEAD_ROWS).to_string()}")  # fmt: skip
    if module == "numpy" and cls.__name__ == "ndarray":
        np: Any = importlib.import_module("numpy")
        array: Any = value
        with np.printoptions(threshold=50, edgeitems=3, linewidth=100):
            preview = repr(array[:HEAD_ROWS]) if array.ndim else repr(array)
        return f"ndarray shape {array.shape} dtype {array.dtype}\nfirst rows:\n{preview}"
    return None
