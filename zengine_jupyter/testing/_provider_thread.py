"""The fake provider on its own loop in a background thread, for synchronous tests (a real
kernel driven through jupyter_client) and for benchmarks that must not measure its work."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import TYPE_CHECKING

from zengine_jupyter.testing._provider_server import ProviderServer

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["provider_in_thread"]


@contextlib.contextmanager
def provider_in_thread(timeout: float = 10.0) -> Iterator[ProviderServer]:
    """A started :class:`ProviderServer`; script it with ``add`` from the test's thread."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="provider-server", daemon=True)
    thread.start()
    server = ProviderServer()
    try:
        asyncio.run_coroutine_threadsafe(server.__aenter__(), loop).result(timeout)
        try:
            yield server
        finally:
            asyncio.run_coroutine_threadsafe(server.aclose(), loop).result(timeout)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout)
        loop.close()
