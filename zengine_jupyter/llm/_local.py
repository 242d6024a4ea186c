"""Model servers on this machine and a server's own model list, for the setup view.

Ollama answers ``GET /api/tags`` (``{"models": [{"name": ...}]}``) and LM Studio, like every
OpenAI-compatible server, ``GET /v1/models`` (``{"data": [{"id": ...}]}``). Both are asked at
once with short timeouts (nothing listening fails in milliseconds), so the kernel's loop never
waits on them. A key, when one is stored for the server's host, is sent only to that host.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from zengine_jupyter.llm._http import redact
from zengine_jupyter.llm._httpx import httpx
from zengine_jupyter.llm._keys import resolve_key
from zengine_jupyter.protocol import LocalServer, ProviderSetupError

if TYPE_CHECKING:
    from zengine_jupyter.llm._keys import AuthStore

__all__ = ["LOCAL_TIMEOUT_S", "find_local_servers", "server_models"]

LOCAL_TIMEOUT_S = 1.5
"""Per local server: connect and read (a running server answers its list at once)."""
_LIST_TIMEOUT_S = 10.0


def _names(data: Any, outer: str, key: str) -> list[str]:
    rows = data.get(outer) if isinstance(data, dict) else None
    names = [str(row[key]) for row in rows or () if isinstance(row, dict) and key in row]
    return sorted(dict.fromkeys(names))


async def _ask(http: httpx.AsyncClient, name: str, url: str, base: str, shape: tuple[str, str]
               ) -> LocalServer:  # fmt: skip
    try:
        response = await http.get(url)
        response.raise_for_status()
        models = _names(response.json(), *shape)
    except httpx.ConnectError:
        return LocalServer(name=name, base_url=base, found=False, error="nothing is listening")
    except httpx.TimeoutException:
        return LocalServer(name=name, base_url=base, found=False, error="no answer in time")
    except httpx.HTTPStatusError as exc:
        error = f"{url} answered {exc.response.status_code}: not {name}"
        return LocalServer(name=name, base_url=base, found=False, error=error)
    except (httpx.HTTPError, ValueError) as exc:
        error = f"{url}: {type(exc).__name__}"
        return LocalServer(name=name, base_url=base, found=False, error=error)
    return LocalServer(name=name, base_url=base, found=True, models=models)


async def find_local_servers(ollama_port: int = 11434, lmstudio_port: int = 1234
                             ) -> list[LocalServer]:  # fmt: skip
    """Ollama and LM Studio on localhost (``[provider] ollama_port`` / ``lmstudio_port``),
    found or not, asked concurrently."""
    ollama = f"http://localhost:{ollama_port}"
    lmstudio = f"http://localhost:{lmstudio_port}"
    timeout = httpx.Timeout(LOCAL_TIMEOUT_S)
    async with httpx.AsyncClient(timeout=timeout, follow_redirects=False, trust_env=False) as http:
        found = await asyncio.gather(
            _ask(http, "Ollama", f"{ollama}/api/tags", f"{ollama}/v1", ("models", "name")),
            _ask(http, "LM Studio", f"{lmstudio}/v1/models", f"{lmstudio}/v1", ("data", "id")),
        )
    return list(found)


async def server_models(base_url: str, auth: AuthStore | None = None) -> list[str]:
    """The model ids an OpenAI-compatible server lists at ``{base_url}/models``; raises
    ``ProviderSetupError`` with the server's own status and words when it cannot."""
    from zengine_jupyter.llm._endpoint import detect_endpoint

    endpoint = detect_endpoint("openai", base_url, None)
    key = resolve_key(endpoint.host, None, auth)
    headers = {"authorization": f"Bearer {key.secret.reveal()}"} if key else {}
    url = f"{endpoint.base_url}/models"
    try:
        async with httpx.AsyncClient(timeout=_LIST_TIMEOUT_S, follow_redirects=False) as http:
            response = await http.get(url, headers=headers)
    except httpx.HTTPError as exc:
        raise ProviderSetupError(
            f"{url}: {type(exc).__name__}: {exc}" if str(exc) else f"{url}: {type(exc).__name__}",
            hint="check the URL (it usually ends in /v1) and that the server is running",
        ) from None
    if response.status_code != 200:
        raise ProviderSetupError(
            f"{url} answered {response.status_code}: "
            f"{redact(response.text[:300], key.secret if key else None)}",
            hint="type the model id instead, or store the server's key first",
        )
    try:
        return _names(response.json(), "data", "id")
    except ValueError:
        raise ProviderSetupError(f"{url} did not answer JSON", hint="type the model id") from None
