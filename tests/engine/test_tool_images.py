"""A tool result's images (RunCell's plots) in the next request, in each wire's own format,
and in the log by reference: the bytes are a file named by their hash, sent again on resume,
and a line of text saying so when the file is gone."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import Field

from zengine_jupyter.engine import Session, SessionExtension, SessionOptions
from zengine_jupyter.engine.tools import Tool, ToolContext, ToolInput, ToolOutput
from zengine_jupyter.protocol import ImagePart
from zengine_jupyter.testing import ProviderServer, Reply, ScriptedToolCall, provider_settings

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
B64 = base64.b64encode(PNG).decode()


class _PlotInput(ToolInput):
    title: str = Field(description="a title")


class _PlotTool(Tool[_PlotInput]):
    name = "Plot"
    kind = "read"
    description = "Plot something."
    Input = _PlotInput

    async def run(self, args: _PlotInput, ctx: ToolContext) -> ToolOutput:
        return ToolOutput(f"plotted {args.title}", images=(ImagePart(media_type="image/png",
                                                                     data=B64),))  # fmt: skip


class _Plots(SessionExtension):
    name = "plots"

    async def start(self, session: Session) -> None:
        session.tools["Plot"] = _PlotTool()


async def _turn(project: Path, server: ProviderServer, session_id: str | None = None) -> str:
    server.add(Reply(tool_calls=(ScriptedToolCall("Plot", {"title": "rates"}),)),
               Reply(text=("seen",)))  # fmt: skip
    session = await Session.open(
        SessionOptions(project=project, session_id=session_id, extensions=(_Plots,))
    )
    try:
        await session.submit("plot it")
    finally:
        await session.aclose()
    return session.id


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    root.mkdir()
    return root


async def test_anthropic_gets_an_image_block_inside_the_tool_result(
    project: Path, zengine_home: Path
) -> None:
    async with ProviderServer() as server:
        (zengine_home / "settings.toml").write_text(provider_settings(server.base_url))
        await _turn(project, server)
    call = server.requests[1].json["messages"][-2]["content"][0]
    (block,) = server.requests[1].json["messages"][-1]["content"]
    assert block == {
        "type": "tool_result",
        "tool_use_id": call["id"],
        "content": [
            {"type": "text", "text": "plotted rates"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                         "data": B64}},
        ],
        "cache_control": {"type": "ephemeral"},  # the request's last block: a cache mark
    }  # fmt: skip


async def test_openai_gets_the_text_as_the_tool_message_and_the_image_in_a_user_message(
    project: Path, zengine_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    async with ProviderServer() as server:
        settings = provider_settings(server.openai_url, kind="openai", model="gpt-5")
        (zengine_home / "settings.toml").write_text(settings)
        await _turn(project, server)
    messages: list[dict[str, Any]] = server.requests[1].json["messages"]
    call_id = messages[-3]["tool_calls"][0]["id"]
    assert messages[-2:] == [
        {"role": "tool", "tool_call_id": call_id, "content": "plotted rates"},
        {"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{B64}"}}]},
    ]  # fmt: skip


async def test_the_log_keeps_the_image_by_hash_and_resume_sends_it_again(
    project: Path, zengine_home: Path
) -> None:
    async with ProviderServer() as server:
        (zengine_home / "settings.toml").write_text(provider_settings(server.base_url))
        chat = await _turn(project, server)
        (log,) = (zengine_home / "sessions").rglob("log.jsonl")
        text = log.read_text()
        assert B64 not in text
        (ref,) = next(r["images"] for r in map(json.loads, text.splitlines()) if r.get("images"))
        digest = hashlib.sha256(PNG).hexdigest()
        assert ref == {"media_type": "image/png", "sha256": digest, "size": len(PNG),
                       "file": f"images/{digest}.png", "width": None, "height": None}  # fmt: skip
        stored = log.parent / "artifacts" / ref["file"]
        assert stored.read_bytes() == PNG

        await _turn(project, server, chat)  # a resumed chat: the old result's image again
        first = server.requests[2].json["messages"][2]["content"][0]
        assert first["content"][1]["source"]["data"] == B64

        stored.unlink()  # gone (a cleaned folder): the model is told, the request stays valid
        await _turn(project, server, chat)
        gone = server.requests[4].json["messages"][2]["content"][0]["content"][1]
        assert gone["type"] == "text"
        assert (
            f"[image {digest[:12]} (image/png, {len(PNG)} bytes) is no longer stored"
            in (gone["text"])
        )


async def test_a_users_images_follow_the_text_or_are_named_for_a_model_without_images(
    tmp_path: Path, zengine_home: Path
) -> None:
    """``Session.submit(text, images)``: a model that takes images gets them after the text;
    one the catalog says takes none (DeepSeek's) gets the text and a line saying they were
    left out, never the bytes."""
    project = tmp_path / "p"
    project.mkdir()
    picture = ImagePart(media_type="image/png", data=B64)
    async with ProviderServer() as server:
        for model, sent in (("gpt-5", True), ("deepseek-v4-flash", False)):
            settings = provider_settings(server.openai_url, kind="openai", model=model)
            (zengine_home / "settings.toml").write_text(settings)
            server.add(Reply(text=("ok",)))
            session = await Session.open(SessionOptions(project=project))
            try:
                await session.submit("what is this?", [picture])
            finally:
                await session.aclose()
            content = server.requests[-1].json["messages"][-1]["content"]
            if sent:
                assert [part["type"] for part in content] == ["text", "image_url"]
                assert content[1]["image_url"]["url"] == f"data:image/png;base64,{B64}"
            else:
                assert isinstance(content, str), content
                assert "what is this?" in content
                assert "1 attached image(s) left out: deepseek-v4-flash does not take" in content
