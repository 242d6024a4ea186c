"""Finding Ollama and LM Studio on localhost and listing a server's models, against the
local provider fake (real HTTP on 127.0.0.1)."""

from __future__ import annotations

import json

import pytest

from zengine_jupyter.llm import find_local_servers, server_models
from zengine_jupyter.protocol import ProviderSetupError
from zengine_jupyter.testing import ProviderServer, free_port


async def test_both_servers_found_by_their_ports() -> None:
    async with ProviderServer() as lmstudio, ProviderServer() as ollama:
        lmstudio.models = ["b-model", "a-model"]
        ollama.files["/api/tags"] = json.dumps({"models": [{"name": "qwen3:8b"}]}).encode()
        found = await find_local_servers(ollama.port, lmstudio.port)
    by_name = {s.name: s for s in found}
    assert by_name["Ollama"].found is True
    assert by_name["Ollama"].models == ["qwen3:8b"]
    assert by_name["Ollama"].base_url == f"http://localhost:{ollama.port}/v1"
    assert by_name["LM Studio"].models == ["a-model", "b-model"]


async def test_nothing_listening_and_another_server_are_not_found() -> None:
    async with ProviderServer() as other:  # answers /v1/models, not Ollama's /api/tags
        found = await find_local_servers(other.port, free_port())
    by_name = {s.name: s for s in found}
    assert by_name["Ollama"].found is False
    assert (
        by_name["Ollama"].error
        == f"http://localhost:{other.port}/api/tags answered 404: not Ollama"
    )
    assert by_name["LM Studio"].found is False
    assert by_name["LM Studio"].error == "nothing is listening"


async def test_server_models_says_what_the_server_said() -> None:
    async with ProviderServer() as server:
        server.models = ["m1"]
        assert await server_models(server.openai_url) == ["m1"]
        with pytest.raises(ProviderSetupError, match="answered 404: not found"):
            await server_models(f"{server.base_url}/nope")
    with pytest.raises(ProviderSetupError, match="ConnectError"):
        await server_models(f"http://127.0.0.1:{free_port()}/v1")
