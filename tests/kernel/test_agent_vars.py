"""``%%agent --vars``: ``{name}`` becomes the variable's capped description only with the flag;
unknown names are left and reported; the widget shows what was sent."""

from __future__ import annotations

import pytest

from zengine_jupyter.kernel._vars import VAR_CAP, substitute
from zengine_jupyter.testing import ProviderServer, Reply
from zengine_jupyter.testing.kernel import (
    ExecResult,
    KernelHarness,
    events_of,
    has_event,
    opened_state,
    widget_id,
)

pytestmark = pytest.mark.e2e


def _last_user_text(server: ProviderServer) -> str:
    content = server.requests[-1].json["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content if block.get("type") == "text")


def _run(kernel: KernelHarness, cell: str) -> tuple[ExecResult, str]:
    result = kernel.execute(cell)
    assert result.status == "ok", result.text
    assert "Traceback" not in result.text
    model_id = widget_id(result)
    events = events_of(kernel.widget_messages(model_id, has_event("turn_result")))
    assert [e["status"] for e in events if e["kind"] == "turn_result"] == ["completed"]
    return result, model_id


def test_vars_flag_substitutes_and_reports(kernel: KernelHarness, server: ProviderServer) -> None:
    setup = kernel.execute("rates = [1, 2, 3]\nlabel = 'north'\n")
    assert setup.status == "ok"

    # without the flag: verbatim
    server.add(Reply(text=("ok",)))
    plain, plain_id = _run(kernel, "%%agent\nLook at {rates} please\n")
    assert _last_user_text(server) == "Look at {rates} please"
    assert opened_state(plain, plain_id)["sent_note"] == ""

    # with it: known names replaced, unknown left and reported, {{x}} literal
    server.add(Reply(text=("ok",)))
    cell = "%%agent --vars\nCompare {rates} with {label}; keep {missing} and {{rates}}\n"
    result, model_id = _run(kernel, cell)
    sent = _last_user_text(server)
    assert sent == (
        "Compare rates: list length 3 of 3 int with label: str length 5 = 'north'; "
        "keep {missing} and {rates}"
    )
    assert "zengine --vars: " in result.text
    assert "{missing}" in result.text
    state = opened_state(result, model_id)
    assert state["prompt"] == sent  # the widget shows exactly what was sent
    assert "replaced {rates}, {label}" in state["sent_note"]
    assert "{missing}" in state["sent_note"]


def test_descriptions_are_capped_and_run_no_user_code() -> None:
    class Loud:
        def __repr__(self) -> str:  # descriptions never call it
            raise AssertionError("repr ran")

    wide = type("W" * (2 * VAR_CAP), (), {})()  # its type name alone is over the cap
    done = substitute("{loud} | {wide} {nope}", {"loud": Loud(), "wide": wide})
    loud, _, rest = done.text.partition(" | ")
    assert loud.startswith("loud: ")
    assert loud.endswith("Loud")
    assert rest.endswith(f" ... (cut at {VAR_CAP} characters) {{nope}}")
    assert len(rest) < VAR_CAP + 60
    assert done.replaced == ("loud", "wide")
    assert done.unknown == ("nope",)
    assert substitute("{{nope}}", {}).text == "{nope}"
