"""The deferred MCP tools a chat has loaded with ``LoadMcpTools``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from zengine_jupyter.integrations.mcp import McpTool

__all__ = ["DeferredTools", "LoadOutcome"]


@dataclass(frozen=True)
class LoadOutcome:
    """What one ``LoadMcpTools`` call did."""

    loaded: tuple[str, ...]
    already: tuple[str, ...]
    unknown: tuple[str, ...]

    def text(self) -> str:
        """The tool result the model reads."""
        parts: list[str] = []
        if self.loaded:
            parts.append(
                "Loaded: " + ", ".join(self.loaded) + ". You can call them from your next "
                "response on."
            )
        if self.already:
            parts.append("Already loaded: " + ", ".join(self.already) + ".")
        if self.unknown:
            parts.append("Unknown (not in the MCP tool list): " + ", ".join(self.unknown) + ".")
        return " ".join(parts) or "Nothing to load."

    @property
    def is_error(self) -> bool:
        return not self.loaded and not self.already


class DeferredTools:
    """Per chat: the qualified names loaded so far (the engine replays them on resume)."""

    def __init__(self, loaded: Iterable[str] = ()) -> None:
        self._loaded: set[str] = set(loaded)

    @property
    def loaded(self) -> frozenset[str]:
        return frozenset(self._loaded)

    def load(self, arguments: Mapping[str, Any], available: Iterable[McpTool]) -> LoadOutcome:
        """Handle a ``LoadMcpTools`` call: ``arguments["names"]`` against the current tools."""
        raw = arguments.get("names", [])
        names = [raw] if isinstance(raw, str) else [str(n) for n in raw or []]
        known = {t.qualified for t in available}
        loaded, already, unknown = [], [], []
        for name in dict.fromkeys(names):
            if name not in known:
                unknown.append(name)
            elif name in self._loaded:
                already.append(name)
            else:
                self._loaded.add(name)
                loaded.append(name)
        return LoadOutcome(tuple(loaded), tuple(already), tuple(unknown))
