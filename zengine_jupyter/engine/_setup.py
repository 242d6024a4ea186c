"""Provider setup, for any frontend (the panel and the ``%zengine setup`` widget call it
through ``kernel/_setup.py``): what is configured now, the models to choose from, a pasted
key stored in auth.json, a test request, and the choice written to the user's settings.toml.

A key is read from the request, stored with :class:`~zengine_jupyter.llm.AuthStore` (the
``zengine auth login`` path: mode 0600, one key per host) and dropped: nothing returned here
contains it, and errors never quote it.
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, Literal

from zengine_jupyter.config import (
    ENV_OVERRIDES,
    aload_settings,
    layer_path,
    write_provider_choice,
)
from zengine_jupyter.engine._wiring import provider_options
from zengine_jupyter.llm import (
    BUILTIN_PRICES,
    DEFAULT_MODELS,
    AuthStore,
    CatalogCache,
    ClientDeps,
    FailingClient,
    ModelInfo,
    ProviderOptions,
    Secret,
    build_client,
    detect_endpoint,
    find_local_servers,
    is_local_host,
    probe_model,
    replay_cassette,
    resolve_key,
    server_models,
)
from zengine_jupyter.protocol import (
    KeyStatus,
    LocalServer,
    ProviderError,
    ProviderSetupError,
    SetupCurrent,
    SetupModel,
    SetupSaved,
    SetupTestResult,
)

if TYPE_CHECKING:
    from pathlib import Path

    from pydantic import SecretStr

    from zengine_jupyter.protocol import SetupChoice, SetupProvider

__all__ = [
    "setup_find_local",
    "setup_models",
    "setup_save",
    "setup_state",
    "setup_store_key",
    "setup_test",
]

_PREFIX = {"anthropic": "claude-", "openai": "gpt-"}


Kind = Literal["anthropic", "openai"]


def _wire(provider: SetupProvider, base_url: str | None) -> tuple[Kind, str | None]:
    """The ``provider.kind`` and ``base_url`` a choice is written as."""
    url = (base_url or "").strip() or None
    if provider in ("compatible", "local") and url is None:
        raise ProviderSetupError(
            "an OpenAI-compatible server needs its URL", hint="type it, e.g. http://host:8000/v1"
        )
    return ("anthropic" if provider == "anthropic" else "openai"), url


def _host(provider: SetupProvider, base_url: str | None) -> str:
    kind, url = _wire(provider, base_url)
    return detect_endpoint(kind, url, None).host


def _key_status(host: str) -> KeyStatus:
    key = resolve_key(host)
    return KeyStatus(host=host, source=key.source if key else None, needed=not is_local_host(host))


def _provider_of(kind: str, base_url: str | None, host: str) -> SetupProvider:
    if kind == "anthropic" or host.endswith("anthropic.com"):
        return "anthropic"
    if host == "api.openai.com":
        return "openai"
    return "local" if is_local_host(host) else "compatible"


async def setup_state(root: Path) -> SetupCurrent:
    """What a chat opened on ``root`` would use now, and whether anything is set up at all."""
    settings = await aload_settings(root)
    options = provider_options(settings.settings, settings.provider_issues)
    path = str(layer_path("user", None))
    overrides = [name for name in ENV_OVERRIDES if _env(name)]
    cassette = await asyncio.to_thread(replay_cassette, options)
    if cassette is not None:
        return SetupCurrent(configured=True, provider="replay", recording=str(cassette),
                            settings_path=path, overrides=overrides)  # fmt: skip
    client = await asyncio.to_thread(build_client, options)
    try:
        problem = client.reason if isinstance(client, FailingClient) else None
        model = getattr(client, "models", (options.model,))[0]
        endpoint = getattr(getattr(client, "adapter", None), "endpoint", None)
    finally:
        await client.aclose()
    configured = problem is None or bool(options.base_url or options.invalid)
    host = endpoint.host if endpoint else _default_host(options)
    return SetupCurrent(
        configured=configured,
        problem=problem.message if problem else None,
        hint=problem.hint if problem else None,
        provider=_provider_of(options.kind, options.base_url, host) if host else None,
        base_url=options.base_url,
        model=model,
        key=_key_status(host) if host else None,
        settings_path=path,
        overrides=overrides,
    )


def _env(name: str) -> bool:
    return bool(os.environ.get(name, "").strip())


def _default_host(options: ProviderOptions) -> str | None:
    try:
        return detect_endpoint(options.kind if options.kind != "replay" else "auto",
                               options.base_url, options.model).host  # fmt: skip
    except ProviderError:
        return None


def _model(info: ModelInfo) -> SetupModel:
    price = info.price
    return SetupModel(id=info.id, context=info.context,
                      input_price=price.input if price else None,
                      output_price=price.output if price else None)  # fmt: skip


async def setup_models(
    provider: SetupProvider, base_url: str | None
) -> tuple[list[SetupModel], str]:
    """The models to choose from and a line saying where they come from."""
    catalog = await CatalogCache().load()
    if provider in ("compatible", "local"):
        _kind, url = _wire(provider, base_url)
        assert url is not None
        host = detect_endpoint("openai", url, None).host
        ids = await server_models(url)
        known = [catalog.model(i, host) or ModelInfo(id=i) for i in ids]
        return [_model(i) for i in known], f"{len(ids)} models listed by {url}"
    infos = catalog.models_of(provider)
    note = f"{len(infos)} models from the models.dev catalog"
    if not infos:
        infos = [ModelInfo(id=i, price=p) for i, p in BUILTIN_PRICES.items()
                 if i.startswith(_PREFIX[provider])]  # fmt: skip
        note = ("the models.dev catalog is not downloaded yet (a chat fetches it): "
                "the built-in list, context sizes unknown")  # fmt: skip
    default = DEFAULT_MODELS["api.anthropic.com" if provider == "anthropic" else "api.openai.com"]
    infos.sort(key=lambda i: (i.id != default, i.id))
    return [_model(i) for i in infos], note


async def setup_find_local(root: Path) -> list[LocalServer]:
    """Ollama and LM Studio on localhost, on the ports the settings name."""
    provider = (await aload_settings(root)).settings.provider
    return await find_local_servers(provider.ollama_port, provider.lmstudio_port)


async def setup_store_key(
    provider: SetupProvider, base_url: str | None, key: SecretStr
) -> KeyStatus:
    """Store ``key`` in auth.json for the provider's host; says where the key now comes from
    (an environment variable still wins over auth.json)."""
    text = key.get_secret_value().strip()
    if not text:
        raise ProviderSetupError("the key is empty: nothing was stored", hint="paste the key")
    if base_url and text in base_url:  # never stored under, or echoed as, a host name
        raise ProviderSetupError(
            "the URL field holds the key: nothing was stored",
            hint="put the server's URL in the URL field and the key in the key field",
        )
    try:
        host = _host(provider, base_url)
    except ProviderError as exc:  # its words may quote the URL: never the key
        raise ProviderSetupError(exc.message.replace(text, "[redacted]"), hint=exc.hint) from None
    await asyncio.to_thread(AuthStore().set, host, Secret(text))
    return await asyncio.to_thread(_key_status, host)


def _options(choice: SetupChoice) -> ProviderOptions:
    kind, url = _wire(choice.provider, choice.base_url)
    return ProviderOptions(model=choice.model.strip(), kind=kind, base_url=url)


async def setup_test(choice: SetupChoice) -> SetupTestResult:
    """One tiny request to the chosen model through the real client."""
    catalog = await CatalogCache().load()
    return await probe_model(_options(choice), ClientDeps(catalog=catalog))


async def setup_save(choice: SetupChoice, root: Path) -> SetupSaved:
    """Write the choice to the user's settings.toml; the words say what applies now."""
    options = _options(choice)
    if not options.model:
        raise ProviderSetupError("choose a model first", hint="pick one from the list")
    path = layer_path("user", None)
    assert options.kind in ("anthropic", "openai")
    removed = await asyncio.to_thread(write_provider_choice, path, kind=options.kind,
                                      base_url=options.base_url, model=options.model)  # fmt: skip
    lines = [f"Saved to {path}: {options.model}"
             f"{f' at {options.base_url}' if options.base_url else ''}."]  # fmt: skip
    if removed:
        lines.append(f"Removed {', '.join(removed)} (models of the previous provider).")
    now = await aload_settings(root)
    effective = (now.settings.model.main, now.settings.provider.base_url)
    if effective != (options.model, options.base_url):
        where = [f"{k} ({now.source_of(k)} layer)" for k in ("model.main", "provider.base_url")
                 if now.source_of(k) not in ("user", "default")]  # fmt: skip
        lines.append(f"Not in effect here: {', '.join(where) or 'another layer'} wins "
                     f"(model {effective[0]}).")  # fmt: skip
    host = _host(choice.provider, choice.base_url)
    if _key_status(host).source is None and not is_local_host(host):
        lines.append(f"No API key for {host} yet: paste one above.")
    return SetupSaved(path=str(path), text=" ".join(lines))
