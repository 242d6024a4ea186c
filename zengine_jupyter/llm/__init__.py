"""Model providers: the ``ModelClient`` port, the Anthropic and OpenAI-compatible adapters,
endpoint detection, keys, retries, fallbacks, the models.dev catalog and cost."""

from zengine_jupyter.llm._catalog import MODELS_DEV_URL, Catalog, CatalogCache, ModelInfo
from zengine_jupyter.llm._client import (
    ClientDeps,
    FailingClient,
    ModelClient,
    ProviderClient,
    build_client,
    replay_cassette,
)
from zengine_jupyter.llm._cost import (
    BUILTIN_PRICES,
    CostMeter,
    Pricer,
    check_cost_cap,
    price_usage,
)
from zengine_jupyter.llm._endpoint import (
    ANTHROPIC_URL,
    DEFAULT_MODELS,
    OPENAI_URL,
    Adapter,
    CallSpec,
    Endpoint,
    detect_endpoint,
)
from zengine_jupyter.llm._keys import (
    ZENGINE_KEY_VAR,
    AuthStore,
    ResolvedKey,
    Secret,
    host_of,
    is_local_host,
    provider_key_var,
    resolve_key,
)
from zengine_jupyter.llm._local import LOCAL_TIMEOUT_S, find_local_servers, server_models
from zengine_jupyter.llm._options import (
    ModelPrice,
    Pricing,
    ProviderKind,
    ProviderOptions,
    RetryPolicy,
    Role,
    Timeouts,
)
from zengine_jupyter.llm._probe import PROBE_PROMPT, probe_model
from zengine_jupyter.llm._replay import (
    REPLAY_MODEL,
    RecordingClient,
    ReplayClient,
    expect_of,
    read_cassette,
)
from zengine_jupyter.llm._sse import SSEDecoder, aiter_sse

__all__ = [
    "ANTHROPIC_URL",
    "BUILTIN_PRICES",
    "DEFAULT_MODELS",
    "LOCAL_TIMEOUT_S",
    "MODELS_DEV_URL",
    "OPENAI_URL",
    "PROBE_PROMPT",
    "REPLAY_MODEL",
    "ZENGINE_KEY_VAR",
    "Adapter",
    "AuthStore",
    "CallSpec",
    "Catalog",
    "CatalogCache",
    "ClientDeps",
    "CostMeter",
    "Endpoint",
    "FailingClient",
    "ModelClient",
    "ModelInfo",
    "ModelPrice",
    "Pricer",
    "Pricing",
    "ProviderClient",
    "ProviderKind",
    "ProviderOptions",
    "RecordingClient",
    "ReplayClient",
    "ResolvedKey",
    "RetryPolicy",
    "Role",
    "SSEDecoder",
    "Secret",
    "Timeouts",
    "aiter_sse",
    "build_client",
    "check_cost_cap",
    "detect_endpoint",
    "expect_of",
    "find_local_servers",
    "host_of",
    "is_local_host",
    "price_usage",
    "probe_model",
    "provider_key_var",
    "read_cassette",
    "replay_cassette",
    "resolve_key",
    "server_models",
]
