"""The ``zengine`` comm target the JupyterLab panel opens.

Messages follow the wire protocol in ``protocol/_wire.py`` (versioned ``v``, tagged by
``kind``, correlated by ``id``). This module builds them as plain dicts so that
``%load_ext zengine`` does not import pydantic; tests validate them against the models.
Until the engine is wired in, the target greets with its version, answers ``hello`` and
answers every other request with a ``reply`` whose ``ok`` is false and whose ``error`` says
plainly what is missing.
"""

from __future__ import annotations

from typing import Any

from zengine_jupyter._version import __version__

__all__ = ["COMM_TARGET", "WIRE_VERSION", "answer", "open_comm"]

COMM_TARGET = "zengine"
WIRE_VERSION = 1


def _hello(request_id: str | None = None) -> dict[str, Any]:
    hello: dict[str, Any] = {"v": WIRE_VERSION, "kind": "hello", "version": __version__}
    if request_id is not None:
        hello["id"] = request_id
    return hello


def _failed(request_id: str, error: str, hint: str | None = None) -> dict[str, Any]:
    reply = {"v": WIRE_VERSION, "kind": "reply", "id": request_id, "ok": False, "error": error}
    return reply if hint is None else {**reply, "hint": hint}


def answer(data: Any) -> dict[str, Any] | None:
    """The kernel's answer to one panel message (None: not a request, nothing to answer)."""
    if not isinstance(data, dict) or not isinstance(data.get("id"), str):
        return None
    request_id: str = data["id"]
    if data.get("v") != WIRE_VERSION:
        return _failed(
            request_id,
            f"the panel speaks wire version {data.get('v')!r}, this kernel's zengine "
            f"{__version__} speaks {WIRE_VERSION}",
            hint="install the same zengine-jupyter version in JupyterLab's and the kernel's "
            "environment, then reload the page",
        )
    kind = data.get("kind")
    if kind == "hello":
        return _hello(request_id)
    return _failed(
        request_id,
        f"zengine {__version__} in this kernel cannot answer {kind!r} yet: "
        "the engine is not connected to the panel in this version.",
    )


def open_comm(comm: Any, open_msg: dict[str, Any]) -> None:
    """Handler registered for ``COMM_TARGET``: greet, then answer requests."""

    def on_msg(msg: dict[str, Any]) -> None:
        reply = answer(msg.get("content", {}).get("data"))
        if reply is not None:
            comm.send(reply)

    comm.on_msg(on_msg)
    comm.send(_hello())
