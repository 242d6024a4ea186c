"""Issue 22 acceptance 2: the messages a newcomer meets say what to do, in a real kernel and in
the ``zengine`` command, and nothing is recorded where it should not be (no chat folder):

- no key: every way to connect a model (the keys, a local server, the setup view, a recording);
- a recording with no answer for a new message: "connect a model to chat live";
- an unknown slash command: the closest known names, nothing sent;
- ``--project`` naming a folder that does not exist: refused before any chat exists.
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING

import pytest

from zengine_jupyter.protocol import (
    CassetteExpect,
    CassetteHeader,
    CassetteStep,
    StopEvent,
    StreamEvent,
    TextDelta,
    TokenUsage,
    UsageEvent,
)
from zengine_jupyter.testing import run_cli
from zengine_jupyter.testing.kernel import (
    WIDGET_MIME,
    ExecResult,
    KernelHarness,
    events_of,
    has_event,
    running_kernel,
    widget_id,
)

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

pytestmark = pytest.mark.e2e

WAYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ZENGINE_BASE_URL", "local server",
        "%zengine setup", "replays a recording")  # fmt: skip
"""What the no-key message names: every way to connect a model."""
NO_ANSWER = (
    "this notebook's recording has no answer for a new message: connect a model to chat live"
)


@pytest.fixture
def no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """No key, base URL or provider override anywhere in the environment."""
    for name in list(os.environ):
        if name.endswith("_API_KEY") or (name.startswith("ZENGINE_") and name != "ZENGINE_HOME"):
            monkeypatch.delenv(name)


@pytest.fixture
def kernel(project: Path, no_key: None) -> Iterator[KernelHarness]:
    env = {"JPY_SESSION_NAME": str(project / "analysis.ipynb")}
    with running_kernel(project, env=env) as harness:
        loaded = harness.execute("%load_ext zengine")
        assert loaded.status == "ok", loaded.text
        yield harness


def _chats(home: Path) -> list[str]:
    folder = home / "sessions"
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def _write_cassette(home: Path, folder: Path) -> None:
    """A one-step recording answering "Say hello", and the user's settings playing it."""
    header = CassetteHeader(recorded_at="2026-01-01T00:00:00+00:00", host="127.0.0.1")
    usage = UsageEvent(model="scripted-model", usage=TokenUsage(input_tokens=3, output_tokens=2))
    answer: list[StreamEvent] = [TextDelta(text="Hello."), usage, StopEvent(reason="end_turn")]
    step = CassetteStep(step=1, expect=CassetteExpect(texts=["Say hello"]), events=answer)
    cassette = folder / "recording.jsonl"
    cassette.write_text(f"{header.model_dump_json()}\n{step.model_dump_json()}\n")
    (home / "settings.toml").write_text(f'[provider]\ncassette = "{cassette}"\n')


def _wait_cell(kernel: KernelHarness, cell: str) -> tuple[str, dict[str, object]]:
    """Run a ``--wait`` cell: its one output's final plain text, and its turn result."""
    result = kernel.execute(cell, timeout=120)
    assert result.status == "ok", result.text
    _one_output(result)
    events = events_of(kernel.widget_messages(widget_id(result), has_event("turn_result")))
    (turn_result,) = [e for e in events if e["kind"] == "turn_result"]
    (update,) = [o for o in result.outputs if o["msg_type"] == "update_display_data"]
    return str(update["content"]["data"]["text/plain"]), turn_result


def _one_output(result: ExecResult) -> None:
    """A ``--wait`` cell shows one output: the widget, whose text/plain is the summary (a
    fallback for frontends without widgets), updated in place at the end."""
    shown = [o for o in result.outputs if o["msg_type"] == "display_data"]
    assert len(shown) == 1, result.outputs
    (update,) = [o for o in result.outputs if o["msg_type"] == "update_display_data"]
    assert set(update["content"]["data"]) == {WIDGET_MIME, "text/plain"}
    shown_id = shown[0]["content"]["transient"]["display_id"]
    assert update["content"]["transient"]["display_id"] == shown_id
    view = update["content"]["data"][WIDGET_MIME]["model_id"]
    assert view == shown[0]["content"]["data"][WIDGET_MIME]["model_id"]


def test_kernel_messages_say_what_to_do(
    kernel: KernelHarness, project: Path, zengine_home: Path, tmp_path: Path
) -> None:
    text, result = _wait_cell(kernel, "%%agent --wait\nhello")
    assert "error: no model is connected: no API key for api.anthropic.com" in text
    for way in WAYS:
        assert way in text, way
    assert result["status"] == "failed"  # an error is never "turn completed"
    assert "turn completed" not in text
    assert _chats(zengine_home) == []  # the model was never reached: no chat kept

    text, result = _wait_cell(kernel, "%agent --wait /mdoe plan")
    assert text.startswith("unknown command /mdoe; did you mean /mode or /model?")
    assert "nothing was sent" in text
    assert result["status"] == "failed"
    assert _chats(zengine_home) == []

    missing = project / "no-such-folder"
    text, result = _wait_cell(kernel, f"%%agent --wait --project {missing}\nhi")
    assert f"error: no such folder: {missing}" in text
    assert "no chat was created" in text
    assert result["status"] == "failed"
    assert not missing.exists()
    assert _chats(zengine_home) == []

    _write_cassette(zengine_home, tmp_path)
    text, result = _wait_cell(kernel, "%%agent --wait\nSay hello")
    assert result["status"] == "completed"
    assert "Hello." in text
    (chat,) = _chats(zengine_home)
    text, result = _wait_cell(kernel, "%%agent --wait\nSomething new")
    assert f"error: {NO_ANSWER}" in text
    for way in ("%zengine setup", "ANTHROPIC_API_KEY"):
        assert way in text
    assert result["status"] == "failed"
    assert _chats(zengine_home) == [chat]  # the chat that had answers is kept, no other

    text, result = _wait_cell(kernel, "%agent --wait /help")
    lines = text.splitlines()
    assert lines[0] == "commands:"
    assert any(line.split() == ["/cost", "What", "this", "chat", "has", "cost", "so", "far,",
                                "and", "its", "tokens"] for line in lines)  # fmt: skip
    for line in lines[1:]:  # each command, one line of description
        name, description = line.split(maxsplit=1)
        assert name.startswith("/")
        assert description.strip()
    assert {line.split()[0] for line in lines[1:]} >= {"/help", "/verify", "/rewind", "/model"}


def test_cli_messages_say_what_to_do(
    project: Path, zengine_home: Path, tmp_path: Path, no_key: None
) -> None:
    async def run(*args: str) -> tuple[int, str, str]:
        return await run_cli(*args, cwd=project, env=dict(os.environ), limit_s=120)

    code, _, err = asyncio.run(run("run", "hello"))
    assert code == 1
    assert "error: no model is connected: no API key for api.anthropic.com" in err
    for way in WAYS:
        assert way in err, way
    assert "[no chat was kept (the model was never reached) · failed" in err
    assert _chats(zengine_home) == []

    code, _, err = asyncio.run(run("run", "/mdoe plan"))
    assert code == 1
    assert "unknown command /mdoe; did you mean /mode or /model?" in err
    assert _chats(zengine_home) == []

    missing = tmp_path / "no-such-folder"
    code, out, err = asyncio.run(run("run", "--project", str(missing), "hi"))
    assert code == 1
    assert err.startswith(f"zengine: no such folder: {missing}")
    assert "no chat was created" in err
    assert not missing.exists()
    assert _chats(zengine_home) == []

    _write_cassette(zengine_home, tmp_path)
    code, out, err = asyncio.run(run("run", "Say hello"))
    assert code == 0, err
    assert out.strip() == "Hello."
    (chat,) = _chats(zengine_home)
    code, out, err = asyncio.run(run("run", "--continue", "Something new"))
    assert code == 1
    assert f"error: {NO_ANSWER}" in err
    assert "%zengine setup" in err
    code, out, err = asyncio.run(run("run", "Something new"))  # a new chat: not kept
    assert code == 1
    assert f"error: {NO_ANSWER}" in err
    assert _chats(zengine_home) == [chat]

    # `zengine sessions list`: a project column, and --project DIR
    code, listing, _ = asyncio.run(run("sessions", "list"))
    assert code == 0
    header, row = listing.splitlines()
    assert header.split()[:3] == ["UPDATED", "CHAT", "PROJECT"]
    assert chat in row
    assert str(project) in row or "~" in row
    code, mine, _ = asyncio.run(run("sessions", "list", "--project", str(project)))
    assert chat in mine
    code, other, _ = asyncio.run(run("sessions", "list", "--project", str(tmp_path)))
    assert other.strip() == "no chats yet"
