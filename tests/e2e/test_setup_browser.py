"""Provider setup in real JupyterLab and Debian Chromium, from a fresh data folder with no key
(issue 22, acceptance 1 and 5).

The panel offers the setup view at once; the local OpenAI-compatible test server is found as
a local server (LM Studio's port setting points at it), a model is chosen from its list, Test
answers and a message gets a streamed answer. The key path runs against the Anthropic-format
test server: the pasted key lands in auth.json (0600) and in no log, artifact, settings file or
message the kernel sent (every websocket frame the page received is searched). The same view
as a cell widget (``%zengine setup``). Light and dark screenshots of both go to
``.ci-artifacts/setup/``.
"""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from zengine_jupyter.testing import ProviderServer, Reply, free_port, provider_in_thread
from zengine_jupyter.testing.components import require_component
from zengine_jupyter.testing.lab import LabServer, chromium_page, running_lab, write_notebook

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ARTIFACTS = Path(__file__).resolve().parents[2] / ".ci-artifacts" / "setup"
PANEL = "#zengine-panel"
SETUP = f"{PANEL} .jp-zengine-setup"
WIDGET = ".jp-zengine-widget-setup .jp-zengine-setup"
WAIT_MS = 60_000
KEY = "sk-ant-browser-5b8e1f0c93d2a7e4"
LOCAL_MODEL = "qwen3-coder:30b"


@pytest.fixture
def servers() -> Iterator[tuple[ProviderServer, ProviderServer]]:
    """The local OpenAI-compatible server (with a model list) and an Anthropic-format one
    that wants ``KEY``."""
    with provider_in_thread() as local, provider_in_thread() as anthropic:
        local.models = [LOCAL_MODEL, "llama3.2:3b"]
        anthropic.api_key = KEY
        yield local, anthropic


@pytest.fixture
def home(tmp_path: Path, servers: tuple[ProviderServer, ProviderServer]) -> Path:
    """A fresh data folder: no key, no provider; only the finder's ports are set."""
    folder = tmp_path / "zengine-home"
    folder.mkdir()
    (folder / "settings.toml").write_text(
        f"[provider]\nlmstudio_port = {servers[0].port}\nollama_port = {free_port()}\n"
    )
    return folder


@pytest.fixture
def lab(tmp_path: Path, home: Path) -> Iterator[LabServer]:
    require_component("node")  # the panel is built by scripts/test only where node is
    root = tmp_path / "project"
    root.mkdir()
    (root / ".git").mkdir()
    write_notebook(root / "setup.ipynb", "%zengine setup", "%%agent\nhello")
    env = {"ZENGINE_HOME": str(home), "ANTHROPIC_API_KEY": "", "OPENAI_API_KEY": "",
           "ZENGINE_API_KEY": ""}  # fmt: skip
    with running_lab(root, tmp_path / "lab-state", env=env) as server:
        yield server


def _frames(page: Any) -> dict[str, list[bytes]]:
    """Every websocket frame the page sends and receives, from now on."""
    frames: dict[str, list[bytes]] = {"sent": [], "received": []}

    def raw(payload: str | bytes) -> bytes:
        return payload.encode() if isinstance(payload, str) else payload

    def watch(ws: Any) -> None:
        ws.on("framesent", lambda p: frames["sent"].append(raw(p)))
        ws.on("framereceived", lambda p: frames["received"].append(raw(p)))

    page.on("websocket", watch)
    return frames


def _shot(node: Any, name: str) -> None:
    node.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def test_setup_from_nothing_local_server_key_and_widget(
    lab: LabServer, home: Path, servers: tuple[ProviderServer, ProviderServer]
) -> None:
    local, anthropic = servers
    with chromium_page(ARTIFACTS, size=(1400, 900), timeout_ms=WAIT_MS) as page:
        frames = _frames(page)
        page.goto(lab.lab_url("setup.ipynb"))
        page.locator('.jp-SideBar.jp-mod-right .lm-TabBar-tab[data-id="zengine-panel"]').click()
        page.wait_for_selector(f'{PANEL}[data-state="connected"][data-subscribed="true"]')

        # nothing configured: the panel offers setup at once, the local server already found
        view = page.locator(SETUP)
        page.wait_for_selector(f'{SETUP}[data-ready="true"]')
        assert "No model is connected yet" in view.locator(".jp-zengine-setup-notice").inner_text()
        assert view.get_attribute("data-provider") == "local"
        lmstudio = view.locator('.jp-zengine-setup-server[data-name="LM Studio"]')
        assert f"localhost:{local.port}/v1 · 2 models" in lmstudio.inner_text()
        assert (
            view.locator('.jp-zengine-setup-server[data-name="Ollama"]').get_attribute("data-found")
            == "false"
        )
        _shot(page.locator(PANEL), "panel-light")

        # an %%agent cell before any model: the turn fails, the cell says what to configure
        # and its button opens the panel's setup view (closed first here)
        page.locator(f"{PANEL} .jp-zengine-setup-open").click()
        view.wait_for(state="detached")
        page.locator(".jp-Cell .cm-content").nth(1).click()
        page.keyboard.press("Control+Enter")
        box = page.locator(".jp-zengine-widget-turn .jp-zengine-state-unconfigured")
        box.wait_for()
        assert "No model is configured" in box.inner_text()
        assert "no API key for api.anthropic.com" in box.inner_text()
        _shot(page.locator(".jp-zengine-widget-turn"), "cell-no-model-light")
        box.locator("button", has_text="Set up a model").click()
        page.wait_for_selector(f'{SETUP}[data-ready="true"]')
        assert len(anthropic.requests) == 0  # no request went anywhere without a key

        # a model from the server's list, Test, Use it
        view.locator(".jp-zengine-setup-model").select_option(LOCAL_MODEL)
        local.add(Reply(text=("I am ", "a local model.")))
        view.locator(".jp-zengine-setup-test").click()
        answer = view.locator(".jp-zengine-setup-answer")
        answer.wait_for()
        assert f"{LOCAL_MODEL} answered" in answer.inner_text()
        assert "I am a local model." in answer.inner_text()
        view.locator(".jp-zengine-setup-save").click()
        saved = page.locator(f"{PANEL} .jp-zengine-item-notice", has_text="Saved to")
        saved.wait_for()
        assert LOCAL_MODEL in saved.inner_text()
        assert view.count() == 0  # closed once saved
        settings = (home / "settings.toml").read_text()
        assert f'main = "{LOCAL_MODEL}"' in settings
        assert f"localhost:{local.port}/v1" in settings

        # a message gets a streamed answer from the model just chosen
        local.add(Reply(text=("Streamed ", "from ", "the local model.")))
        page.locator(f"{PANEL} .jp-zengine-input").fill("hello")
        page.locator(f"{PANEL} .jp-zengine-input").press("Enter")
        reply = page.locator(f"{PANEL} .jp-zengine-item-assistant").last
        page.wait_for_function(
            "sel => document.querySelector(sel)?.innerText.includes('Streamed from the local')",
            arg=f"{PANEL} .jp-zengine-item-assistant",
        )
        assert "Streamed from the local model." in reply.inner_text()
        chat = [r for r in local.requests if r.wire == "openai" and r.rejected is None]
        assert chat[-1].json["model"] == LOCAL_MODEL

        # the key path: Anthropic format at the test server, the key pasted and stored
        page.locator(f"{PANEL} .jp-zengine-setup-open").click()
        page.wait_for_selector(f'{SETUP}[data-ready="true"]')
        view.locator('[data-provider="anthropic"] input').check()
        view.locator(".jp-zengine-setup-url").fill(anthropic.base_url)
        view.locator(".jp-zengine-setup-key").fill(KEY)
        view.locator(".jp-zengine-setup-key-save").click()
        status = view.locator(".jp-zengine-setup-key-status")
        page.wait_for_function(
            "sel => document.querySelector(sel)?.innerText.includes('Key stored')",
            arg=f"{SETUP} .jp-zengine-setup-key-status",
        )
        assert status.inner_text() == "Key stored for 127.0.0.1 (auth.json)."
        assert view.locator(".jp-zengine-setup-key").input_value() == ""
        view.locator(".jp-zengine-setup-model").select_option("claude-sonnet-4-6")
        anthropic.add(Reply(text=("Hello from the Anthropic format.",)))
        view.locator(".jp-zengine-setup-test").click()
        view.locator(".jp-zengine-setup-answer").wait_for()
        assert anthropic.requests[-1].headers["x-api-key"] == KEY
        auth = home / "auth.json"
        assert stat.S_IMODE(auth.stat().st_mode) == 0o600
        assert json.loads(auth.read_text())["hosts"]["127.0.0.1"]["api_key"] == KEY
        _shot(page.locator(PANEL), "panel-anthropic-light")

        # the same view as a cell widget: %zengine setup
        page.locator(".jp-Cell .cm-content").first.click()
        page.keyboard.press("Control+Enter")
        widget = page.locator(WIDGET)
        page.wait_for_selector(f'{WIDGET}[data-ready="true"]')
        assert "Now: " in widget.locator(".jp-zengine-setup-current").inner_text()
        _shot(page.locator(".jp-zengine-widget-setup"), "widget-light")

        # dark theme: both follow JupyterLab's variables
        page.evaluate("window.jupyterapp.commands.execute('apputils:change-theme', "
                      "{theme: 'JupyterLab Dark'})")  # fmt: skip
        page.wait_for_selector('body[data-jp-theme-light="false"]', state="attached")
        page.wait_for_selector("#jupyterlab-splash", state="detached")
        page.wait_for_function(
            f"getComputedStyle(document.querySelector('{WIDGET}')).color !== 'rgba(0, 0, 0, 0.87)'"
        )
        _shot(page.locator(PANEL), "panel-dark")
        _shot(page.locator(".jp-zengine-widget-setup"), "widget-dark")

    # the key went kernel-ward once (the setup_key request) and came back in nothing
    secret = KEY.encode()
    sent = [f for f in frames["sent"] if secret in f]
    assert len(sent) == 1, len(sent)
    assert b"setup_key" in sent[0]
    assert len(frames["received"]) > 20
    assert not [f for f in frames["received"] if secret in f]
    assert secret not in lab.log.read_bytes()
    for path in [*home.rglob("*"), *ARTIFACTS.rglob("*")]:
        if path.is_file() and path != auth:
            assert secret not in path.read_bytes(), path
    assert KEY not in (home / "settings.toml").read_text()
