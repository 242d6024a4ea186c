"""A chat's model clients by role (spec, Providers 5).

``model.main`` runs the main agent; ``model.fast`` serves titles, compaction summaries and the
explore and verify subagents; ``model.review`` a review agent. Both default to main. A role
whose model is main's gets main's client; another is built once, on first use, from the same
provider options and ``ClientDeps`` (so the same fallbacks, retries, key, pricing, running
cost and cap), and closed with the chat or when the model settings change.

A client the chat did not build (a test's fake, handed in through ``SessionOptions.client``)
and a recording or replayed one (a cassette is one sequence of answers) serve every role.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zengine_jupyter.llm import ProviderClient, build_client

if TYPE_CHECKING:
    from zengine_jupyter.llm import ClientDeps, ModelClient, ProviderOptions, Role

__all__ = ["ModelRoles"]


class ModelRoles:
    """The main client and the role clients built beside it."""

    def __init__(
        self, main: ModelClient, provider: ProviderOptions, deps: ClientDeps | None
    ) -> None:
        """``deps`` None: ``main`` was handed in, so it serves every role."""
        self._main = main
        self._provider = provider
        self._deps = deps
        self._built: dict[Role, ModelClient] = {}

    @property
    def live(self) -> bool:
        """The chat built a live provider client (not a fake, a cassette or a failing one)."""
        return self._deps is not None and isinstance(self._main, ProviderClient)

    def model(self, role: Role) -> str | None:
        """The model id ``role`` asks for (None: the provider's default)."""
        if isinstance(self._main, ProviderClient) and self._own(role):
            return self._main.models[0]
        built = self._built.get(role)
        if isinstance(built, ProviderClient):
            return built.models[0]
        return self._provider.model_for(role)

    def _own(self, role: Role) -> bool:
        """Whether ``role`` is served by the main client itself."""
        if not self.live:
            return True
        return (self._provider.model_for(role) or "") == (self._provider.model_for("main") or "")

    def client(self, role: Role) -> ModelClient:
        """The client for ``role``."""
        if self._own(role):
            return self._main
        client = self._built.get(role)
        if client is None:
            assert self._deps is not None  # _own is true without deps
            client = self._built[role] = build_client(self._provider, role, self._deps)
        return client

    async def replace(
        self, main: ModelClient, provider: ProviderOptions, deps: ClientDeps | None
    ) -> None:
        """New model settings (/model, a settings reload): role clients are built again."""
        await self.aclose()
        self._main, self._provider, self._deps = main, provider, deps

    async def aclose(self) -> None:
        """Close the role clients built here (main belongs to the session)."""
        built, self._built = self._built, {}
        for client in built.values():
            await client.aclose()
