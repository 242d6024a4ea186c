"""A small Python project whose pytest check the engine discovers, and helpers to drive a
chat against the local provider server."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from zengine_jupyter.engine import Session, SessionOptions
from zengine_jupyter.engine.verify import VerificationExtension
from zengine_jupyter.protocol import ApprovalDecision, ApprovalRequest, EngineEvent
from zengine_jupyter.testing import ProviderServer


class AllowAll:
    """Approves every call and remembers which tools asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.requests: list[ApprovalRequest] = []

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        self.asked.append(request.tool)
        self.requests.append(request)
        return ApprovalDecision(action="allow_once")


@pytest.fixture
def calc(tmp_path: Path) -> Path:
    """``add`` correct, one pytest test for it."""
    root = tmp_path / "calc"
    root.mkdir()
    (root / "pyproject.toml").write_text(
        '[project]\nname = "calc"\nversion = "0"\n\n[tool.pytest.ini_options]\n'
        'testpaths = ["."]\naddopts = "-p no:cacheprovider"\n'
    )
    (root / ".gitignore").write_text("__pycache__/\n")
    (root / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "test_calc.py").write_text(
        "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
    )
    return root


@pytest.fixture
async def provider(zengine_home: Path) -> AsyncIterator[ProviderServer]:
    async with ProviderServer() as server:
        write_settings(zengine_home, server)
        yield server


def write_settings(home: Path, server: ProviderServer, extra: str = "") -> None:
    (home / "settings.toml").write_text(
        f'[provider]\nkind = "anthropic"\nbase_url = "{server.base_url}"\n'
        f'[model]\nmain = "claude-sonnet-4-6"\n{extra}'
    )


async def open_chat(project: Path, **options: Any) -> tuple[Session, AllowAll]:
    approvals = AllowAll()
    session = await Session.open(SessionOptions(project=project, approvals=approvals, **options))
    return session, approvals


def extension(session: Session) -> VerificationExtension:
    return next(e for e in session.extensions if isinstance(e, VerificationExtension))


async def drain(session: Session, sub: Any) -> list[EngineEvent]:
    await session.aclose()
    return [event async for event in sub]


def last_user_text(body: dict[str, Any]) -> str:
    """The text of the last user message of a recorded Anthropic request."""
    content = body["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return "\n".join(str(part.get("text", part.get("content", ""))) for part in content)
