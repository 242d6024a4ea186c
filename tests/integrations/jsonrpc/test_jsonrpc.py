"""JSON-RPC core: framing, correlation, timeouts, both directions, closing."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import pytest

from zengine_jupyter.integrations.jsonrpc import (
    METHOD_NOT_FOUND,
    JsonRpcConnection,
    StdioOptions,
    encode_frame,
    read_frame,
    spawn_stdio_peer,
)
from zengine_jupyter.protocol import (
    JsonRpcClosedError,
    JsonRpcFramingError,
    JsonRpcRemoteError,
    JsonRpcTimeoutError,
)
from zengine_jupyter.testing.jsonrpc import memory_stream_pair


def _reader(data: bytes, eof: bool = True) -> asyncio.StreamReader:
    reader = asyncio.StreamReader()
    reader.feed_data(data)
    if eof:
        reader.feed_eof()
    return reader


async def test_frames_round_trip_with_extra_headers_in_any_case() -> None:
    body = json.dumps({"jsonrpc": "2.0", "method": "x", "params": {"é": 1}}).encode()
    data = (
        encode_frame({"a": [1, 2]})
        + b"content-type: application/vscode-jsonrpc; charset=utf-8\r\n"
        + b"CONTENT-LENGTH: "
        + str(len(body)).encode()
        + b"\r\n\r\n"
        + body
        + b"Content-Length: 2\n\n{}"  # bare LF line ends are tolerated too
    )
    reader = _reader(data)
    assert await read_frame(reader) == {"a": [1, 2]}
    assert await read_frame(reader) == {"jsonrpc": "2.0", "method": "x", "params": {"é": 1}}
    assert await read_frame(reader) == {}
    assert await read_frame(reader) is None  # clean end between frames


@pytest.mark.parametrize(
    ("data", "error", "match"),
    [
        (b"Content-Type: x\r\n\r\n{}", JsonRpcFramingError, "without a Content-Length"),
        (b"Content-Length: abc\r\n\r\n{}", JsonRpcFramingError, "invalid Content-Length"),
        (b"Content-Length: -3\r\n\r\n{}", JsonRpcFramingError, "invalid Content-Length"),
        (b"no colon here\r\n\r\n", JsonRpcFramingError, "malformed header"),
        (b"Content-Length: 5\r\n\r\n{oops", JsonRpcFramingError, "not JSON"),
        (b"Content-Length: 50\r\n\r\n{}", JsonRpcClosedError, "middle of a frame"),
        (b"Content-Len", JsonRpcClosedError, "middle of a frame"),
    ],
)
async def test_malformed_frames_are_typed_errors(
    data: bytes, error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        await read_frame(_reader(data), peer="srv")


async def _pair() -> tuple[JsonRpcConnection, JsonRpcConnection]:
    (ar, aw), (br, bw) = memory_stream_pair()
    return JsonRpcConnection(ar, aw, name="a"), JsonRpcConnection(br, bw, name="b")


async def test_requests_are_correlated_by_id_even_when_answered_out_of_order() -> None:
    client, server = await _pair()

    async def slow_echo(params: Any) -> Any:
        await asyncio.sleep(params["delay"])
        return params["value"]

    server.on_request("echo", slow_echo)
    async with client, server:
        results = await asyncio.gather(
            client.request("echo", {"delay": 0.05, "value": "first"}),
            client.request("echo", {"delay": 0.0, "value": "second"}),
            client.request("echo", {"delay": 0.02, "value": [3]}),
        )
    assert list(results) == ["first", "second", [3]]


async def test_notifications_flow_both_ways_and_server_requests_use_handlers() -> None:
    client, server = await _pair()
    seen: list[tuple[str, Any]] = []
    client.on_notification("progress", lambda p: seen.append(("client", p)))
    server.on_notification("opened", lambda p: seen.append(("server", p)))

    async def configuration(params: Any) -> Any:
        return [f"value-of-{item}" for item in params["items"]]

    client.on_request("workspace/configuration", configuration)

    async def ask_back(_params: Any) -> Any:
        await server.notify("progress", {"kind": "begin"})
        return await server.request("workspace/configuration", {"items": ["a", "b"]})

    server.on_request("go", ask_back)
    async with client, server:
        await client.notify("opened", {"uri": "file:///x"})
        assert await client.request("go") == ["value-of-a", "value-of-b"]
    assert ("server", {"uri": "file:///x"}) in seen
    assert ("client", {"kind": "begin"}) in seen


async def test_unknown_methods_get_method_not_found_and_handler_errors_an_error_reply() -> None:
    client, server = await _pair()

    async def broken(_params: Any) -> Any:
        raise ValueError("bad input")

    async def refuses(_params: Any) -> Any:
        raise JsonRpcRemoteError("no", code=-32002, data={"why": "test"})

    server.on_request("broken", broken)
    server.on_request("refuses", refuses)
    async with client, server:
        with pytest.raises(JsonRpcRemoteError) as missing:
            await client.request("nope")
        assert missing.value.code == METHOD_NOT_FOUND
        assert "nope" in missing.value.message
        with pytest.raises(JsonRpcRemoteError, match="bad input") as failed:
            await client.request("broken")
        assert failed.value.code == -32603
        with pytest.raises(JsonRpcRemoteError) as refused:
            await client.request("refuses")
        assert (refused.value.code, refused.value.data) == (-32002, {"why": "test"})
        # the connection survives every one of those
        server.on_request("ok", _ok)
        assert await client.request("ok") == "ok"


async def _ok(_params: Any) -> str:
    return "ok"


async def test_a_request_times_out_and_the_peer_is_told_to_cancel() -> None:
    (ar, aw), (br, bw) = memory_stream_pair()
    client = JsonRpcConnection(ar, aw, name="srv", cancel_method="$/cancelRequest")
    server = JsonRpcConnection(br, bw, name="client")
    cancelled: list[Any] = []
    server.on_notification("$/cancelRequest", cancelled.append)
    never = asyncio.Event()

    async def hang(_params: Any) -> None:
        await never.wait()

    server.on_request("hang", hang)
    server.on_request("ok", _ok)
    async with client, server:
        with pytest.raises(JsonRpcTimeoutError, match="srv did not answer hang"):
            await client.request("hang", timeout_s=0.05)
        assert await client.request("ok") == "ok"  # still usable
    assert cancelled == [{"id": 1}]


async def test_a_dead_peer_fails_pending_and_later_requests_and_aclose_is_idempotent() -> None:
    (ar, aw), (_br, bw) = memory_stream_pair()
    client = JsonRpcConnection(ar, aw, name="srv")
    client.start()
    pending = asyncio.ensure_future(client.request("anything"))
    await asyncio.sleep(0.01)
    bw.close()  # the peer's output ends: EOF for us
    with pytest.raises(JsonRpcClosedError, match="srv closed the connection"):
        await pending
    assert isinstance(await client.wait_closed(), JsonRpcClosedError)
    with pytest.raises(JsonRpcClosedError):
        await client.notify("x")
    await client.aclose()
    await client.aclose()
    assert client.closed


async def test_a_malformed_frame_closes_the_connection_with_a_framing_error() -> None:
    (ar, aw), (_br, bw) = memory_stream_pair()
    client = JsonRpcConnection(ar, aw, name="srv")
    async with client:
        pending = asyncio.ensure_future(client.request("anything"))
        await asyncio.sleep(0.01)
        bw.write(b"Content-Length: 3\r\n\r\nnot")
        with pytest.raises(JsonRpcFramingError, match="srv sent a frame whose body is not JSON"):
            await pending
        assert isinstance(client.close_reason, JsonRpcFramingError)


async def test_a_real_child_process_over_stdio(tmp_path: Any) -> None:
    # A real subprocess: the fixture language server, spoken to with raw JSON-RPC.
    argv = [sys.executable, "-m", "zengine_jupyter.testing.lsp_server"]
    peer = await spawn_stdio_peer(argv, StdioOptions(name="fixture", cwd=tmp_path))
    try:
        peer.connection.start()
        result = await peer.connection.request("initialize", {"capabilities": {}}, timeout_s=20)
        assert result["serverInfo"]["name"] == "zengine-fixture-lsp"
        with pytest.raises(JsonRpcRemoteError) as missing:
            await peer.connection.request("no/such", timeout_s=10)
        assert missing.value.code == METHOD_NOT_FOUND
        with pytest.raises(JsonRpcClosedError):
            await peer.connection.request("fixture/crash", timeout_s=10)
        assert await peer.process.wait() == 3
    finally:
        await peer.aclose()
        await peer.aclose()
    assert peer.returncode == 3


async def test_a_program_that_cannot_start_is_a_process_error(tmp_path: Any) -> None:
    from zengine_jupyter.protocol import ProcessError

    with pytest.raises(ProcessError, match="could not start nothing"):
        await spawn_stdio_peer(["zengine-no-such-program"], StdioOptions(name="nothing"))
