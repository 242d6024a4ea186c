"""The ``zengine`` comm target the JupyterLab panel opens.

Messages are versioned (``v``), tagged by ``kind`` and correlated by ``id``.
Until the kernel frontend issue gives the panel its protocol, the target
greets with its version and answers every request with a plain error that
names the missing part.
"""

from __future__ import annotations

from typing import Any

from zengine_jupyter._version import __version__

__all__ = ["COMM_TARGET", "WIRE_VERSION", "open_comm"]

COMM_TARGET = "zengine"
WIRE_VERSION = 1


def open_comm(comm: Any, open_msg: dict[str, Any]) -> None:
    """Handler registered for ``COMM_TARGET``: greet, then answer requests."""

    def on_msg(msg: dict[str, Any]) -> None:
        data = msg.get("content", {}).get("data", {}) or {}
        comm.send(
            {
                "v": WIRE_VERSION,
                "kind": "error",
                "id": data.get("id"),
                "message": (
                    f"zengine {__version__} cannot answer {data.get('kind')!r} yet: "
                    "the panel protocol arrives with the Jupyter kernel frontend."
                ),
            }
        )

    comm.on_msg(on_msg)
    comm.send({"v": WIRE_VERSION, "kind": "hello", "version": __version__})
