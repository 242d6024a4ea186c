"""Whether an MCP request could have reached the server: only a refused connection says no.

:meth:`Connection.request` runs each HTTP request under a :class:`Delivery`; the SDK sends
each HTTP POST in its sender's context, so :class:`RefusalAwareClient` can mark that very request
``refused`` when its connection could not even be made (nothing of it was sent). Any other
failure leaves the request possibly delivered. A stdio pipe gives no such proof (its requests
are not tracked).
"""

from __future__ import annotations

import contextvars
from typing import Any

import httpx2

__all__ = ["Delivery", "RefusalAwareClient"]


class Delivery:
    """One request's fate: ``refused`` once a POST for it could not even connect. Entered
    (``with Delivery() as delivery``), it is the request being sent in this task and in what
    the task starts."""

    __slots__ = ("_token", "refused")

    def __init__(self) -> None:
        self.refused = False

    def __enter__(self) -> Delivery:
        self._token = _CURRENT.set(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _CURRENT.reset(self._token)


_CURRENT: contextvars.ContextVar[Delivery | None] = contextvars.ContextVar(
    "zengine_mcp_delivery", default=None
)


class RefusalAwareClient(httpx2.AsyncClient):
    """Notes a refused connection (nothing of the request left) for the request being sent."""

    async def send(self, request: httpx2.Request, **kwargs: Any) -> httpx2.Response:
        try:
            return await super().send(request, **kwargs)
        except httpx2.ConnectError:
            delivery = _CURRENT.get()
            if delivery is not None:
                delivery.refused = True
            raise
