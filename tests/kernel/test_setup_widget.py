"""Provider setup in a real kernel: ``%load_ext`` offers the setup view when nothing is
configured (and only then); ``%zengine setup``'s widget finds the local test server by the
port setting, lists its models, tests one, stores a key in auth.json (mode 0600, in no reply
or message) and writes the choice to settings.toml, which an open chat's ``/model`` shows."""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from zengine_jupyter.testing import ProviderServer, Reply, free_port, provider_in_thread
from zengine_jupyter.testing.kernel import (
    WIDGET_MIME,
    ExecResult,
    KernelHarness,
    opened_state,
    running_kernel,
)

pytestmark = pytest.mark.e2e

NO_KEYS = {"ANTHROPIC_API_KEY": "", "OPENAI_API_KEY": "", "ZENGINE_API_KEY": ""}
KEY = "sk-ant-setup-7f3e9d2c41b8a605"


def _widgets(result: ExecResult) -> list[str]:
    return [
        out["content"]["data"][WIDGET_MIME]["model_id"]
        for out in result.outputs
        if out["msg_type"] == "display_data" and WIDGET_MIME in out["content"]["data"]
    ]


def _ask(kernel: KernelHarness, model_id: str, body: dict[str, Any]) -> dict[str, Any]:
    """Send a setup request as the widget's view does; its one reply."""
    request_id = f"q{body['kind']}"
    kernel.send_widget_message(model_id, {"v": 1, "id": request_id, **body})
    (*_, reply) = kernel.widget_messages(
        model_id, lambda m: m.get("kind") == "reply" and m.get("id") == request_id
    )
    return reply


@pytest.fixture
def bare_kernel(project: Path, zengine_home: Path) -> Iterator[KernelHarness]:
    """A kernel in ``project`` with no key anywhere and zengine not loaded yet."""
    env = {"JPY_SESSION_NAME": str(project / "analysis.ipynb"), **NO_KEYS}
    with running_kernel(project, env=env) as harness:
        yield harness


def test_load_ext_offers_setup_only_when_nothing_is_configured(
    bare_kernel: KernelHarness, zengine_home: Path
) -> None:
    loaded = bare_kernel.execute("%load_ext zengine")
    assert loaded.status == "ok", loaded.text
    _status, setup = _widgets(loaded)  # the status line, then the setup view
    assert "No model is connected yet" in loaded.text
    assert "ANTHROPIC_API_KEY" in loaded.text
    state = opened_state(loaded, setup)
    assert state["notice"].startswith("No model is connected yet")
    assert state["_model_name"] == "AnyModel"
    assert "setup_find_local" in state["_esm"]  # the setup bundle
    # pydantic stays out: the check at %load_ext is the cheap one
    check = bare_kernel.execute("import sys; print('pydantic' in sys.modules)")
    assert check.text.strip() == "False"

    # once a key is stored, %load_ext shows the status line only
    (zengine_home / "auth.json").write_text(json.dumps({"version": 1, "hosts": {
        "api.anthropic.com": {"api_key": "k"}}}))  # fmt: skip
    assert bare_kernel.execute("%unload_ext zengine").status == "ok"
    again = bare_kernel.execute("%load_ext zengine")
    assert len(_widgets(again)) == 1, again.text
    assert "No model is connected" not in again.text


@pytest.fixture
def local_server(zengine_home: Path) -> Iterator[ProviderServer]:
    """The OpenAI-compatible test server, listed as LM Studio by the port setting (Ollama's
    port points at nothing); the user's settings file has a comment to keep."""
    with provider_in_thread() as server:
        server.models = ["qwen3-coder:30b", "llama3.2:3b"]
        (zengine_home / "settings.toml").write_text(
            "# my settings\n[provider]\n"
            f"lmstudio_port = {server.port}\nollama_port = {free_port()}\n"
        )
        yield server


def test_setup_widget_local_server_key_test_and_save(
    bare_kernel: KernelHarness, local_server: ProviderServer, zengine_home: Path
) -> None:
    assert bare_kernel.execute("%load_ext zengine").status == "ok"
    # a chat is open before the setup is saved: it must pick the choice up
    before = bare_kernel.execute("%agent --wait /model")
    assert "model: the provider default" in before.text, before.text

    shown = bare_kernel.execute("%zengine setup")
    assert shown.status == "ok", shown.text
    (widget,) = _widgets(shown)
    assert opened_state(shown, widget)["notice"] == ""

    state = _ask(bare_kernel, widget, {"kind": "setup_state"})["setup"]["state"]
    assert state["configured"] is False
    assert state["settings_path"] == str(zengine_home / "settings.toml")

    servers = _ask(bare_kernel, widget, {"kind": "setup_find_local"})["setup"]["servers"]
    found = {s["name"]: s for s in servers}
    assert found["Ollama"]["found"] is False
    lmstudio = found["LM Studio"]
    assert lmstudio["found"] is True
    assert lmstudio["models"] == ["llama3.2:3b", "qwen3-coder:30b"]
    assert lmstudio["base_url"] == f"http://localhost:{local_server.port}/v1"

    models = _ask(bare_kernel, widget, {"kind": "setup_models", "provider": "local",
                                        "base_url": lmstudio["base_url"]})  # fmt: skip
    assert [m["id"] for m in models["setup"]["models"]] == lmstudio["models"]

    choice = {"provider": "local", "base_url": lmstudio["base_url"], "model": "qwen3-coder:30b"}
    local_server.add(Reply(text=("I am ", "qwen3-coder.")))
    test = _ask(bare_kernel, widget, {"kind": "setup_test", "choice": choice})["setup"]["test"]
    assert test == {**test, "ok": True, "model": "qwen3-coder:30b", "answer": "I am qwen3-coder."}
    assert local_server.requests[-1].json["model"] == "qwen3-coder:30b"

    # a provider error comes back in the provider's own words
    local_server.add(Reply.fault(400, error_message="model is loading"))
    failed = _ask(bare_kernel, widget, {"kind": "setup_test", "choice": choice})["setup"]["test"]
    assert failed["ok"] is False
    assert failed["error"].startswith("400:"), failed
    assert "model is loading" in failed["error"]

    saved = _ask(bare_kernel, widget, {"kind": "setup_save", "choice": choice})
    assert saved["ok"] is True, saved
    assert "1 open chat uses it now" in saved["setup"]["saved"]["text"]
    text = (zengine_home / "settings.toml").read_text()
    assert text.startswith("# my settings\n[provider]\n")  # the user's file, kept as it was
    assert f'base_url = "{lmstudio["base_url"]}"' in text
    assert 'kind = "openai"' in text
    assert 'main = "qwen3-coder:30b"' in text
    after = bare_kernel.execute("%agent --wait /model")
    assert "model: qwen3-coder:30b" in after.text, after.text

    # the key path: stored for the endpoint's host, 0600, never in a reply or message
    local_server.api_key = KEY
    reply = _ask(bare_kernel, widget, {"kind": "setup_key", "provider": "anthropic",
                                       "base_url": local_server.base_url, "key": KEY})  # fmt: skip
    assert reply["setup"]["key"] == {"host": "127.0.0.1", "source": "auth.json", "needed": False}
    auth = zengine_home / "auth.json"
    assert stat.S_IMODE(auth.stat().st_mode) == 0o600
    assert json.loads(auth.read_text())["hosts"]["127.0.0.1"]["api_key"] == KEY
    local_server.add(Reply(text=("Hello from claude",)))
    anthropic = {"provider": "anthropic", "base_url": local_server.base_url,
                 "model": "claude-sonnet-4-6"}  # fmt: skip
    test = _ask(bare_kernel, widget, {"kind": "setup_test", "choice": anthropic})["setup"]["test"]
    assert test["ok"] is True, test
    assert local_server.requests[-1].headers["x-api-key"] == KEY  # sent kernel -> provider only
    empty = _ask(bare_kernel, widget, {"kind": "setup_key", "provider": "anthropic",
                                       "base_url": None, "key": "  "})  # fmt: skip
    assert empty["ok"] is False
    assert "empty" in empty["error"]

    # every message the kernel sent (replies, state, outputs) and every file but auth.json
    sent = json.dumps([m["content"] for m in bare_kernel.received])
    assert len(bare_kernel.received) > 50  # the whole conversation was captured
    assert KEY not in sent
    for path in zengine_home.rglob("*"):
        if path.is_file() and path != auth:
            assert KEY not in path.read_text(errors="replace"), path


def test_setup_request_refusals(bare_kernel: KernelHarness) -> None:
    assert bare_kernel.execute("%load_ext zengine").status == "ok"
    (widget,) = _widgets(bare_kernel.execute("%zengine setup"))
    bad = _ask(bare_kernel, widget, {"kind": "setup_models", "provider": "compatible"})
    assert bad["ok"] is False
    assert "needs its URL" in bad["error"]
    other = _ask(bare_kernel, widget, {"kind": "refresh"})
    assert other["ok"] is False
    assert "this widget answers setup_find_local" in other["error"]
    words = bare_kernel.execute("%zengine nonsense")
    assert "%zengine setup" in words.text
