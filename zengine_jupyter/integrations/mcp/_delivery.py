"""Whether an MCP request could have reached the server: only a refused connection says no.

:meth:`Connection.request` runs each request under :func:`tracking`; the SDK sends each HTTP
POST in its sender's context, so :class:`RefusalAwareClient` can mark that very request
``refused`` when its connection could not even be made (nothing of it was sent). Any other
failure leaves the request possibly delivered. A stdio pipe gives no such proof.
"""

from __future__ import annotations

import contextlib
import contextvars
from typing import TYPE_CHECKING, Any

import httpx2

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["Delivery", "RefusalAwareClient", "tracking"]


class Delivery:
    """One request's fate: ``refused`` once a POST for it could not even connect."""

    __slots__ = ("refused",)

    def __init__(self) -> None:
        self.refused = False


_CURRENT: contextvars.ContextVar[Delivery | None] = contextvars.ContextVar(
    "zengine_mcp_delivery", default=None
)


@contextlib.contextmanager
def tracking() -> Iterator[Delivery]:
    """Track the request sent inside this block (in this task and what it sends)."""
    delivery = Delivery()
    token = _CURRENT.set(delivery)
    try:
        yield delivery
    finally:
        _CURRENT.reset(token)


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
