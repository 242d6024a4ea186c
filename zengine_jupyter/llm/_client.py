"""The ``ModelClient`` port and the client the engine uses: retries, fallbacks, cost.

``build_client`` never raises for a bad setup: a client that cannot be built (no key for a
remote host, a malformed URL, a provider setting that was set but is invalid:
``ProviderOptions.invalid``) is a ``FailingClient`` that fails each request with the reason,
so the chat still opens and says what to fix. A setup problem never falls back to another
host.

Retries: a temporary failure (``ProviderError.retryable``) is tried again, up to
``RetryPolicy.attempts`` in total, after 0.5 s, 1 s, 2 s, ... (at most 16 s), or what the
provider's retry-after asks (at most 60 s); each wait is announced by a ``retry`` event.
Fallbacks: when a model still fails before any answer text (or tool call) streamed, the next
model of ``fallbacks`` is tried with the same provider and key (not after a 401/402/403: the
same key would fail again). Once text has streamed a failure is final: the partial text stays
and an ``error`` event ends the stream.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from zengine_jupyter.llm._connect import no_key_hint
from zengine_jupyter.llm._cost import CostMeter, Pricer, check_cost_cap
from zengine_jupyter.llm._endpoint import DEFAULT_MODELS, OPENAI_URL, CallSpec, detect_endpoint
from zengine_jupyter.llm._keys import AuthStore, provider_key_var, resolve_key
from zengine_jupyter.protocol import (
    ConfigError,
    ContextTooLongError,
    CostCapReachedError,
    ErrorEvent,
    FallbackEvent,
    ProviderConnectionError,
    ProviderError,
    ProviderSetupError,
    ProviderTimeoutError,
    RetryEvent,
    TextDelta,
    ToolCallStart,
    UsageEvent,
)

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable, Mapping

    from zengine_jupyter.llm._catalog import ModelInfo, ModelLookup
    from zengine_jupyter.llm._endpoint import Adapter, Endpoint
    from zengine_jupyter.llm._options import ModelPrice, ProviderOptions, Role
    from zengine_jupyter.protocol import ModelRequest, StreamEvent

__all__ = ["ClientDeps", "FailingClient", "ModelClient", "ProviderClient", "build_client"]

_NO_FALLBACK_STATUSES = frozenset({401, 402, 403})


class ModelClient(Protocol):
    """The port: a provider-neutral stream of events for one request (see ``protocol._llm``)."""

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]: ...

    async def aclose(self) -> None: ...


@dataclass(frozen=True)
class ClientDeps:
    """What a client needs besides ``ProviderOptions``; tests replace ``sleep`` and ``environ``."""

    pricing: Mapping[str, ModelPrice] = field(default_factory=dict)
    catalog: ModelLookup | None = None
    """Context sizes, output limits and prices (None: the built-in price table only)."""
    environ: Mapping[str, str] | None = field(default=None, repr=False)
    """Where keys are looked up (None = ``os.environ``); kept out of ``repr``."""
    auth: AuthStore | None = None
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    meter: CostMeter | None = None
    """The chat's running cost; usage is added to it and the cap is checked before requests."""
    cost_cap_usd: float | None = None


_NOT_RETRIED = (
    "part of the answer had arrived, so it is not retried (that could repeat it); "
    "send your message again to go on"
)


def _final_hint(exc: ProviderError, after_text: bool, attempts: int) -> str | None:
    """The hint of a failure that ends the stream: true about what was retried."""
    if after_text:
        return _NOT_RETRIED
    hint = exc.hint
    if hint and "retried automatically" in hint:
        first = hint.split(";")[0].strip()
        hint = first if "retried automatically" not in first else None
    if exc.retryable and attempts > 1:
        tried = f"tried {attempts} times"
        hint = f"{hint}; {tried}" if hint else f"{tried}; try again later"
    return hint


def _error_event(
    exc: ProviderError, model: str | None, after_text: bool, attempts: int = 1
) -> ErrorEvent:
    kind = "provider"
    if isinstance(exc, ProviderTimeoutError):
        kind = "timeout"
    elif isinstance(exc, ProviderConnectionError):
        kind = "connection"
    elif isinstance(exc, ProviderSetupError):
        kind = "setup"
    elif isinstance(exc, CostCapReachedError):
        kind = "cost_cap"
    elif isinstance(exc, ContextTooLongError):
        kind = "context_length"
    return ErrorEvent(
        message=exc.message,
        hint=_final_hint(exc, after_text, attempts),
        status=exc.status,
        kind=kind,
        model=model,
        after_text=after_text,
    )


class FailingClient:
    """A client that could not be built: every request yields one ``error`` with the reason."""

    def __init__(self, reason: ProviderError) -> None:
        self.reason = reason

    def __repr__(self) -> str:
        return f"FailingClient({self.reason.message!r})"

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        yield _error_event(self.reason, None, after_text=False)

    async def aclose(self) -> None:
        return None


class ProviderClient:
    """One provider, one key, a model and its fallbacks, with retries and pricing."""

    def __init__(
        self,
        adapter: Adapter,
        options: ProviderOptions,
        models: tuple[str, ...],
        deps: ClientDeps,
    ) -> None:
        self.adapter = adapter
        self.options = options
        self.models = models
        self._deps = deps
        self._pricer = Pricer(deps.pricing, deps.catalog, adapter.endpoint.host)
        self._closed = False

    def __repr__(self) -> str:
        return f"ProviderClient({self.adapter!r}, models={self.models!r})"

    async def prepare(self) -> None:
        """Optional: make the connection pool now, off the first request's path."""
        await self.adapter.prepare()

    async def aclose(self) -> None:
        if not self._closed:
            self._closed = True
            await self.adapter.aclose()

    @property
    def pricer(self) -> Pricer:
        """How this client prices its models (``[pricing]``, catalog, built-in table)."""
        return self._pricer

    def model_info(self, model: str | None = None) -> ModelInfo | None:
        """What the catalog knows of ``model`` (default: the first model) on this host."""
        wanted = model or self.models[0]
        catalog = self._deps.catalog
        return catalog.model(wanted, self._pricer.host) if catalog is not None else None

    def _call(self, request: ModelRequest, model: str) -> CallSpec:
        info = self.model_info(model)
        max_tokens = request.max_tokens
        for cap in (self.options.max_output_tokens, info.output if info else None):
            if cap:
                max_tokens = min(max_tokens, cap)
        return CallSpec(model, request.effort or self.options.effort, max_tokens, info)

    def _priced(self, event: UsageEvent) -> UsageEvent:
        cost = self._pricer.cost(event.model, event.usage)
        if self._deps.meter is not None:
            self._deps.meter.add(cost, event.model)
        return event.model_copy(update={"cost_usd": cost})

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        if self._deps.meter is not None:
            try:
                check_cost_cap(self._deps.meter, self._deps.cost_cap_usd)
            except CostCapReachedError as exc:
                yield _error_event(exc, None, after_text=False)
                return
        policy = self.options.retry
        committed = False
        for position, model in enumerate(self.models):
            call = self._call(request, model)
            failure: ProviderError | None = None
            tried = 0
            for attempt in range(1, policy.attempts + 1):
                tried = attempt
                try:
                    async for event in self.adapter.events(request, call):
                        if type(event) is UsageEvent:
                            event = self._priced(event)
                        elif not committed and isinstance(event, TextDelta | ToolCallStart):
                            committed = True
                        yield event
                    return
                except ProviderError as exc:
                    if committed:
                        yield _error_event(exc, model, after_text=True)
                        return
                    failure = exc
                    if not exc.retryable or attempt == policy.attempts:
                        break
                    wait = policy.wait_s(attempt, exc.retry_after_s)
                    yield RetryEvent(
                        model=model,
                        attempt=attempt + 1,
                        attempts=policy.attempts,
                        wait_s=wait,
                        reason=exc.message,
                        host=self.adapter.endpoint.host,
                    )
                    await self._deps.sleep(wait)
            assert failure is not None
            following = self.models[position + 1 :]
            if not following or failure.status in _NO_FALLBACK_STATUSES:
                yield _error_event(failure, model, after_text=False, attempts=tried)
                return
            yield FallbackEvent(from_model=model, to_model=following[0], reason=failure.message)


def _adapter(endpoint: Endpoint, options: ProviderOptions, deps: ClientDeps) -> Adapter:
    key = resolve_key(endpoint.host, deps.environ, deps.auth)
    if key is None and not endpoint.local:
        raise ProviderSetupError(
            f"no model is connected: no API key for {endpoint.host}",
            hint=no_key_hint(endpoint.host, provider_key_var(endpoint.host)),
        )
    secret = key.secret if key is not None else None
    if endpoint.wire == "anthropic":  # only the wire in use is imported
        from zengine_jupyter.llm.anthropic import AnthropicAdapter

        return AnthropicAdapter(endpoint, secret, options.timeouts)
    from zengine_jupyter.llm.openai import OpenAIAdapter

    return OpenAIAdapter(endpoint, secret, options.timeouts)


def build_client(
    options: ProviderOptions, role: Role = "main", deps: ClientDeps | None = None
) -> ModelClient:
    """The client for ``role`` (``fast`` and ``review`` default to ``main``), with the
    fallbacks after it. Never raises for a bad setup: see ``FailingClient``.

    Which provider: ``record`` set: the live one, written to that cassette; kind ``replay``:
    the cassette; kind ``auto`` with a cassette, no base URL and no key for the default
    endpoint: the cassette too; otherwise the live one. Without a model and a base URL, an
    OpenAI key alone (no Anthropic one) picks OpenAI's endpoint."""
    deps = deps or ClientDeps()
    if options.invalid:
        return FailingClient(ProviderSetupError(
            f"{options.invalid[0]}; no request is sent to any provider until it is fixed",
            hint="fix or remove that setting (`zengine settings --layers` lists every layer)",
        ))  # fmt: skip
    chosen = (options.model_for(role) or "").strip() or None
    if options.kind == "replay" and not options.record:
        if not options.cassette:
            return FailingClient(ProviderSetupError(
                "provider.kind is replay but no cassette is set",
                hint="set ZENGINE_CASSETTE (provider.cassette) to a recorded session",
            ))  # fmt: skip
        return _replay(Path(options.cassette).expanduser(), deps)
    default_endpoint = options.kind == "auto" and not (options.base_url or "").strip()
    if (
        default_endpoint
        and chosen is None
        and _key(ANTHROPIC_HOST, deps) is None
        and _key(OPENAI_HOST, deps) is not None
    ):
        options = replace(options, base_url=OPENAI_URL)
    client = _live(options, chosen, deps)
    if options.record and isinstance(client, ProviderClient):
        from zengine_jupyter.llm._replay import RecordingClient  # imported with a cassette only

        host = client.adapter.endpoint.host
        return RecordingClient(client, Path(options.record).expanduser(), host, client.models[0])
    no_key = isinstance(client, FailingClient)
    if default_endpoint and no_key and options.cassette and not options.record:
        return _replay(Path(options.cassette).expanduser(), deps)
    return client


def _replay(cassette: Path, deps: ClientDeps) -> ModelClient:
    from zengine_jupyter.llm._replay import ReplayClient  # imported with a cassette only

    return ReplayClient(cassette, deps.meter)


ANTHROPIC_HOST = "api.anthropic.com"
OPENAI_HOST = "api.openai.com"


def replay_cassette(options: ProviderOptions, deps: ClientDeps | None = None) -> Path | None:
    """The cassette :func:`build_client` would replay for these options (None: a live model),
    without building a client: for status lines. Set up but keyless, it is the cassette."""
    if options.record or not options.cassette or options.invalid:
        return None
    cassette = Path(options.cassette).expanduser()
    if options.kind == "replay":
        return cassette
    if options.kind != "auto" or (options.base_url or "").strip():
        return None
    deps = deps or ClientDeps()
    keyless = _key(ANTHROPIC_HOST, deps) is None and _key(OPENAI_HOST, deps) is None
    return cassette if keyless else None


def _key(host: str, deps: ClientDeps) -> object:
    try:
        return resolve_key(host, deps.environ, deps.auth)
    except ConfigError:
        return None


def _live(options: ProviderOptions, chosen: str | None, deps: ClientDeps) -> ModelClient:
    try:
        endpoint = detect_endpoint(options.kind, options.base_url, chosen)
        model = chosen or DEFAULT_MODELS.get(endpoint.host)
        if model is None:
            raise ProviderSetupError(
                f"no model is set for {endpoint.host} (model.main)",
                hint="set model.main to one of the models that server offers",
            )
        models = (model, *(m for m in options.fallbacks if m != model))
        adapter = _adapter(endpoint, options, deps)
    except ProviderError as exc:
        return FailingClient(exc)
    except ConfigError as exc:
        return FailingClient(ProviderSetupError(exc.message, hint=exc.hint))
    return ProviderClient(adapter, options, models, deps)
