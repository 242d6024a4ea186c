"""The user's settings file that points a session at a provider fake, written once for tests."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from zengine_jupyter.testing._provider_server import ProviderServer

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from pathlib import Path

__all__ = ["DEFAULT_MODEL", "configured_provider", "provider_settings", "write_provider_settings"]

DEFAULT_MODEL = "claude-sonnet-4-6"
"""The model id tests ask the provider fake for (the one place it is spelled)."""


def provider_settings(
    base_url: str, extra: str = "", *, kind: str = "anthropic", model: str = DEFAULT_MODEL
) -> str:
    """``settings.toml`` text: ``[provider]`` kind and base_url, ``[model] main``, ``extra``."""
    return (
        f'[provider]\nkind = "{kind}"\nbase_url = "{base_url}"\n[model]\nmain = "{model}"\n{extra}'
    )


def write_provider_settings(
    home: Path, base_url: str, extra: str = "", *, kind: str = "anthropic"
) -> Path:
    """Write :func:`provider_settings` as ``home/settings.toml`` (the user's layer); its path."""
    path = home / "settings.toml"
    path.write_text(provider_settings(base_url, extra, kind=kind))
    return path


@contextlib.asynccontextmanager
async def configured_provider(home: Path, extra: str = "") -> AsyncIterator[ProviderServer]:
    """A running :class:`ProviderServer` with the user's settings in ``home`` pointing at it."""
    async with ProviderServer() as server:
        write_provider_settings(home, server.base_url, extra)
        yield server
