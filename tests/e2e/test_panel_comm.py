"""The panel's conversation with a real kernel, message for message, through jupyter_client.

The same sequence labextension/src/connection.ts sends: a silent probe for the comm target,
a silent ``attach`` (registration without the status output) when it is missing,
``comm_open``, then wire requests.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

import zengine_jupyter
from zengine_jupyter.protocol import (
    COMM_TARGET,
    HelloMessage,
    HelloRequest,
    KernelMessage,
    Reply,
    Snapshot,
    SubscribeRequest,
)
from zengine_jupyter.testing.kernel import KernelHarness, running_kernel

pytestmark = pytest.mark.e2e

# the probe connection.ts evaluates (as a user expression of a silent, empty execute)
TARGET_PROBE = f"'{COMM_TARGET}' in get_ipython().kernel.comm_manager.targets"
messages: TypeAdapter[Any] = TypeAdapter(KernelMessage)


@pytest.fixture
def kernel(tmp_path: Path) -> Iterator[KernelHarness]:
    with running_kernel(tmp_path) as harness:
        yield harness


REPO = Path(__file__).resolve().parents[2]
ATTACH = "__import__('zengine_jupyter.kernel', fromlist=['attach']).attach(get_ipython())"
"""What connection.ts runs; a test checks the two agree."""


def _silent(kernel: KernelHarness, code: str, **expressions: str) -> dict[str, Any]:
    """An execute as the panel sends it (silent, no history); returns the reply content."""
    msg_id = kernel.client.execute(
        code, silent=True, store_history=False, user_expressions=expressions
    )
    while True:
        reply = kernel.client.get_shell_msg(timeout=60)
        if reply["parent_header"].get("msg_id") == msg_id:
            return dict(reply["content"])


def _target_registered(kernel: KernelHarness) -> bool:
    content = _silent(kernel, "", zengine=TARGET_PROBE)
    result = content["user_expressions"]["zengine"]
    assert result["status"] == "ok", result
    return bool(result["data"]["text/plain"] == "True")


def _request(kernel: KernelHarness, comm_id: str, request: Any) -> Any:
    """Send one request as the panel does; the kernel's one message back, validated."""
    data = request if isinstance(request, dict) else request.model_dump(mode="json")
    kernel.send_comm("comm_msg", {"comm_id": comm_id, "data": data})
    (raw,) = kernel.comm_messages(comm_id)
    return messages.validate_python(raw)


def test_the_panel_sequence_loads_the_extension_subscribes_and_is_refused_plainly(
    kernel: KernelHarness,
) -> None:
    assert ATTACH in (REPO / "labextension" / "src" / "connection.ts").read_text()
    assert not _target_registered(kernel)
    assert _silent(kernel, ATTACH)["status"] == "ok"
    assert _target_registered(kernel)

    comm_id = "panel-comm-1"
    kernel.send_comm("comm_open", {"comm_id": comm_id, "target_name": COMM_TARGET, "data": {}})
    (raw_hello,) = kernel.comm_messages(comm_id)
    assert messages.validate_python(raw_hello) == HelloMessage(version=zengine_jupyter.__version__)

    hello = _request(kernel, comm_id, HelloRequest(id="p1", client_version="0.1.0"))
    assert hello == HelloMessage(version=zengine_jupyter.__version__, id="p1")

    # subscribing with no chat in the kernel: an empty snapshot, then the reply
    kernel.send_comm(
        "comm_msg", {"comm_id": comm_id, "data": SubscribeRequest(id="p2").model_dump(mode="json")}
    )
    snapshot, subscribed = (messages.validate_python(raw)
                            for raw in kernel.comm_messages(comm_id, count=2))  # fmt: skip
    assert snapshot == Snapshot(id="p2", session_id="")
    assert subscribed == Reply(id="p2", ok=True)

    # what the kernel cannot take is refused by name, never ignored
    refused = _request(kernel, comm_id, {"v": 1, "kind": "dance", "id": "p3"})
    assert (refused.id, refused.ok) == ("p3", False)
    assert "unknown request kind 'dance'" in (refused.error or "")
    refused = _request(kernel, comm_id, {"v": 1, "kind": "submit", "id": "p4"})
    assert "invalid 'submit' request: text: Field required" in (refused.error or "")
    refused = _request(kernel, comm_id, {"v": 2, "kind": "submit", "id": "p5", "text": "x"})
    assert "wire version 2" in (refused.error or "")
    assert refused.hint


def test_a_second_load_is_not_needed_and_a_second_panel_gets_its_own_hello(
    kernel: KernelHarness,
) -> None:
    assert _silent(kernel, ATTACH)["status"] == "ok"
    # the notebook's own %load_ext after the panel attached: the status, not "already loaded"
    loaded = kernel.execute("%load_ext zengine")
    assert loaded.status == "ok"
    assert "already loaded" not in loaded.text
    assert f"zengine {zengine_jupyter.__version__}" in loaded.text
    for comm_id in ("panel-a", "panel-b"):
        kernel.send_comm("comm_open", {"comm_id": comm_id, "target_name": COMM_TARGET, "data": {}})
        (raw,) = kernel.comm_messages(comm_id)
        assert messages.validate_python(raw).kind == "hello"
    # after %unload_ext the target is gone: the panel's probe sees it and loads again
    assert _silent(kernel, "%unload_ext zengine")["status"] == "ok"
    assert not _target_registered(kernel)
