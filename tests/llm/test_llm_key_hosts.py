"""Acceptance 3: a key configured for one host is never sent to another.

Two local servers under two host names (127.0.0.1 and localhost), each with its own key in
auth.json; each must receive only its own key, including when one redirects to the other.
"""

from __future__ import annotations

import pytest

from zengine_jupyter.llm import (
    AuthStore,
    ClientDeps,
    ProviderKind,
    ProviderOptions,
    Secret,
    build_client,
)
from zengine_jupyter.testing import FakeClock, ProviderServer, Reply
from zengine_jupyter.testing.llm import collect, stream_once, text_of

KEY_A = "sk-hostA-1111111111111111"
KEY_B = "sk-hostB-2222222222222222"


def _all_header_text(server: ProviderServer) -> str:
    return "\n".join(f"{k}: {v}" for r in server.requests for k, v in r.headers.items())


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
async def test_each_host_receives_only_its_own_key(wire: ProviderKind) -> None:
    store = AuthStore()
    store.set("127.0.0.1", Secret(KEY_A))
    store.set("localhost", Secret(KEY_B))
    deps = ClientDeps(environ={}, auth=store)
    async with (
        ProviderServer(api_key=KEY_A, hostname="127.0.0.1") as a,
        ProviderServer(api_key=KEY_B, hostname="localhost") as b,
    ):
        a.always(Reply.answer("from A"))
        b.always(Reply.answer("from B"))
        suffix = "" if wire == "anthropic" else "/v1"
        client_a = build_client(
            ProviderOptions(model="m", kind=wire, base_url=a.base_url + suffix),
            deps=deps,
        )
        client_b = build_client(
            ProviderOptions(model="m", kind=wire, base_url=b.base_url + suffix),
            deps=deps,
        )
        try:
            assert text_of(await collect(client_a)) == "from A"
            assert text_of(await collect(client_b)) == "from B"
            assert text_of(await collect(client_a)) == "from A"
        finally:
            await client_a.aclose()
            await client_b.aclose()
    assert len(a.requests) == 2
    assert len(b.requests) == 1
    assert KEY_A in _all_header_text(a)
    assert KEY_B not in _all_header_text(a)
    assert KEY_B in _all_header_text(b)
    assert KEY_A not in _all_header_text(b)
    assert {r.headers["host"].split(":")[0] for r in a.requests} == {"127.0.0.1"}
    assert {r.headers["host"].split(":")[0] for r in b.requests} == {"localhost"}


async def test_a_redirect_to_another_host_is_not_followed() -> None:
    store = AuthStore()
    store.set("127.0.0.1", Secret(KEY_A))
    async with (
        ProviderServer(api_key=KEY_A, hostname="127.0.0.1") as a,
        ProviderServer(hostname="localhost") as b,
    ):
        b.always(Reply.answer("stolen"))
        a.add(Reply(status=307, headers={"location": f"{b.base_url}/v1/messages"}))
        events = await stream_once(
            ProviderOptions(model="m", kind="anthropic", base_url=a.base_url),
            deps=ClientDeps(environ={}, auth=store, sleep=FakeClock().sleep),
        )
    assert b.requests == []
    assert events[-1].type == "error"
    assert events[-1].status == 307


async def test_a_providers_own_variable_goes_only_to_that_providers_host() -> None:
    env = {"OPENAI_API_KEY": KEY_A, "ANTHROPIC_API_KEY": KEY_B}
    async with ProviderServer() as local:  # a local server needs no key
        local.always(Reply.answer("ok"))
        wires: list[tuple[ProviderKind, str]] = [
            ("openai", local.openai_url),
            ("anthropic", local.base_url),
        ]
        for wire, url in wires:
            client = build_client(
                ProviderOptions(model="m", kind=wire, base_url=url),
                deps=ClientDeps(environ=env),
            )
            try:
                assert text_of(await collect(client)) == "ok"
            finally:
                await client.aclose()
    sent = _all_header_text(local)
    assert KEY_A not in sent
    assert KEY_B not in sent
    assert all(
        "authorization" not in r.headers and "x-api-key" not in r.headers for r in local.requests
    )


async def test_zengine_api_key_wins_over_the_provider_variable_and_auth_json() -> None:
    store = AuthStore()
    store.set("127.0.0.1", Secret(KEY_B))
    async with ProviderServer(api_key=KEY_A) as server:
        server.always(Reply.answer("ok"))
        client = build_client(
            ProviderOptions(model="m", kind="openai", base_url=server.openai_url),
            deps=ClientDeps(environ={"ZENGINE_API_KEY": KEY_A}, auth=store),
        )
        try:
            assert text_of(await collect(client)) == "ok"
        finally:
            await client.aclose()
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY_A}"
