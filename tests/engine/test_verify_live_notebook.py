"""Verification when the agent edited a notebook live (issue 23): checks read the saved file,
so a turn whose notebook edit is still unsaved in the page is not Verified; once the page
saved it, the same checks verify it. Through the engine and the local provider server, the
page answered by ``zengine_jupyter.testing.live_page``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import nbformat
import pytest

from zengine_jupyter.config import TrustStore
from zengine_jupyter.engine import Session, SessionOptions
from zengine_jupyter.kernel._live_docs import ChatLive, LiveRegistry
from zengine_jupyter.protocol import VerificationChanged
from zengine_jupyter.testing import (
    ProviderServer,
    RecordingApprovals,
    Reply,
    ScriptedToolCall,
    configured_provider,
    write_provider_settings,
)
from zengine_jupyter.testing.live_page import FakePage
from zengine_jupyter.verify import unsaved_notebooks

CHECK = (
    '[[verification.checks]]\nid = "nb"\nkind = "test"\n'
    'command = ["python", "-c", "import json; json.load(open(\'nb.ipynb\'))"]\n'
)


@pytest.fixture
async def provider(zengine_home: Path) -> AsyncIterator[ProviderServer]:
    async with configured_provider(zengine_home) as server:
        yield server


async def test_an_unsaved_live_edit_is_unverified_until_saved(
    tmp_path: Path, provider: ProviderServer, zengine_home: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x = 1")]
    nb.cells[0].id = "c-x"
    nbformat.write(nb, project / "nb.ipynb")
    write_provider_settings(zengine_home, provider.base_url, f"[verification]\nmode = "
                            f'"auto"\nauto_checks = ["nb"]\n{CHECK}')  # fmt: skip
    TrustStore().trust(project)
    edit = {"path": "nb.ipynb", "cell_id": "c-x", "source": "x = 2"}
    provider.add(
        Reply(tool_calls=(ScriptedToolCall("NotebookEdit", edit),)),
        Reply(text=("Set x.",)),
    )
    session = await Session.open(SessionOptions(
        project=project, approvals=RecordingApprovals(default="allow_once")))  # fmt: skip
    registry = LiveRegistry()
    session.ctx.live = ChatLive(registry, lambda: "t")
    page = FakePage(registry, project)
    page.open("nb.ipynb")
    sub = session.subscribe()

    outcome = await session.submit("set x")
    assert outcome.status == "completed"
    assert page.sources("nb.ipynb") == ["x = 2"]
    page.dirty["nb.ipynb"] = False  # the user saves; the page reports it
    (project / "nb.ipynb").write_text(__import__("json").dumps(page.notebooks["nb.ipynb"]))
    page.report()
    again = await session.submit("/verify")
    await session.aclose()
    badges = [e async for e in sub if isinstance(e, VerificationChanged)]

    unsaved = next(b for b in badges if b.turn_id is not None)
    assert unsaved.badge == "unverified"
    assert "nb.ipynb is open in JupyterLab with unsaved changes" in unsaved.reason
    assert again.text is not None
    assert badges[-1].badge == "verified", [(b.badge, b.reason) for b in badges]


def test_a_failed_or_inapplicable_badge_stays_as_it_is() -> None:
    from zengine_jupyter.protocol import Badge, VerificationOutcome

    failed = VerificationOutcome(badge=Badge.FAILED, reason="x failed")
    assert unsaved_notebooks(failed, ["a.ipynb"]) is failed
    none = VerificationOutcome(badge=Badge.UNVERIFIED, reason="no check ran since the change")
    assert unsaved_notebooks(none, []) is none
    said = unsaved_notebooks(none, ["a.ipynb", "b.ipynb"])
    assert said.reason.startswith("no check ran since the change; a.ipynb, b.ipynb are open")
