"""Attack: the model reads secrets out of the user's kernel through KernelVariables: the
first 80 characters of a string, IPython's history (`_iN` cell sources, `_N` / `Out`
outputs), names such as `secret_key`, a dict holding a key, `dict(os.environ)`. A real
kernel, a scripted model; the key text must never reach the provider."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from zengine_jupyter.kernel._namespace import describe_namespace, refusal
from zengine_jupyter.kernel._vars import substitute
from zengine_jupyter.testing import (
    ProviderServer,
    Reply,
    ScriptedToolCall,
)
from zengine_jupyter.testing.kernel import KernelHarness, agent_kernel, events_of, has_event

KEY = "sk-test-FAKEKEY0123456789abcdefXYZ"
"""A fake key; every assertion looks for it (and its tail) in what the provider received."""
_TAIL = KEY[-16:]


@pytest.fixture
def kernel(tmp_path: Path, server: ProviderServer) -> Iterator[KernelHarness]:
    """A kernel (zengine loaded) in an empty project; ``server`` is tests/conftest.py's."""
    project = tmp_path / "proj"
    project.mkdir()
    with agent_kernel(project) as harness:
        yield harness


def _history_cell(kernel: KernelHarness, code: str) -> None:
    """A cell run as a notebook runs it: stored in IPython's history (In, Out, _iN, _N)."""
    msg_id = kernel.client.execute(code, store_history=True)
    result = kernel._collect(msg_id, 60.0)
    assert result.status == "ok", result.text


@pytest.mark.e2e
def test_kernel_variables_never_send_a_key(kernel: KernelHarness, server: ProviderServer) -> None:
    """Attack: a scripted model asks KernelVariables for `secret_key`, `_iN` (a cell's source
    holding the key), `_N` and `Out` (a cell's output), `In`, a string variable and a dict
    holding the key, `env = dict(os.environ)`, and every variable at once."""
    _history_cell(kernel, f"stash = {KEY!r}")  # its source is in _iN / In
    _history_cell(kernel, "stash")  # its output is in _N / Out / _
    setup = kernel.execute(
        "import os\n"
        "secret_key = stash\nOPENAI_API_KEY = stash\nhf_token = stash\nnote = stash\n"
        "blob = stash.encode()\ncfg = {'api': stash, stash: 1, 'rows': 3}\n"
        "os.environ['ZZ_FAKE_SERVICE_KEY'] = stash\nenv = dict(os.environ)\n"
        "items = ['a', stash]\nrows = [1, 2, 3]\n"
        "history = In\n"
    )
    assert setup.status == "ok", setup.text
    numbered = [f"_i{n}" for n in range(1, 8)] + [f"_{n}" for n in range(1, 8)]
    names = ["secret_key", "OPENAI_API_KEY", "hf_token", "note", "blob", "cfg", "env", "items",
             "history", "rows", "Out", "In", "_", "__", "_i", "_ii", "_oh", "_ih",
             *numbered]  # fmt: skip
    server.add(
        Reply(tool_calls=(ScriptedToolCall("KernelVariables", {"names": names}),)),
        Reply(tool_calls=(ScriptedToolCall("KernelVariables", {}),)),
        Reply(text=("done",)),
    )
    cell = kernel.execute("%%agent\nWhat variables do I have?\n")
    assert cell.status == "ok", cell.text
    from zengine_jupyter.testing.kernel import widget_id

    events = events_of(kernel.widget_messages(widget_id(cell), has_event("turn_result")))
    assert [e["status"] for e in events if e["kind"] == "turn_result"] == ["completed"]
    finished = [e for e in events if e["kind"] == "tool_call_finished"]
    assert len(finished) == 2
    described = finished[0]["output"]

    sent = json.dumps([r.json for r in server.requests])
    assert len(server.requests) == 3
    assert KEY not in sent
    assert _TAIL not in sent
    assert "env: " in described  # os.environ's values: names only
    for event in finished:
        assert _TAIL not in event["output"]
    lines = described.splitlines()
    assert "secret_key is refused: it looks like a secret; ask the user to describe it" in lines
    assert "OPENAI_API_KEY is refused: it looks like a secret; ask the user to describe it" in lines
    assert any(line.startswith("_i1 is refused: it is IPython's history") for line in lines)
    assert any(line.startswith("Out is refused") for line in lines)
    assert "note: str length 34 (text is not shown)" in lines
    assert "rows: list length 3 of 3 int" in lines
    assert any(line.startswith("env: dict length ") and " str" in line for line in lines)
    assert any(line.startswith("cfg: dict length 3; keys 'api', <str len 34>, 'rows'")
               for line in lines)  # fmt: skip


def test_refused_names() -> None:
    """Attack: names holding history or secrets, spelled as users spell them."""
    for name in ("In", "Out", "_", "__", "___", "_i", "_ii", "_iii", "_i12", "_7", "_oh",
                 "_ih", "_dh", "exit", "quit", "get_ipython", "api_key", "OPENAI_API_KEY",
                 "hf_token", "db_password", "passwd", "apiKey", "APIKEY", "client_secret",
                 "aws_credentials", "auth", "authToken", "api_keys", "hf_tokens"):  # fmt: skip
        assert refusal(name) is not None, name
    for name in ("df", "rows", "monkey", "keyboard", "tokenizer", "tokens", "author", "_private",
                 "num_tokens", "keys", "secretary"):  # fmt: skip
        assert refusal(name) is None, name


def test_user_vars_flag_keeps_values() -> None:
    """The user's own `%%agent --vars {note}` is an explicit choice: it still shows the start
    of a string and refuses nothing (only the model's tool is narrowed)."""
    done = substitute("{note} {api_key}", {"note": "north", "api_key": 3})
    assert done.text == "note: str length 5 = 'north' api_key: int = 3"
    assert "refused" in describe_namespace({"api_key": 3}, ["api_key"])


def test_dataframe_head_masks_text_cells() -> None:
    """Attack: a key in a DataFrame's string column, category, index or column name reaches
    the model through the head; numbers stay visible (the tool's main use)."""
    import pandas as pd

    frame = pd.DataFrame(
        {"n": [1, 2], "s": [KEY, "x"], KEY: [1.5, 2.5], "c": pd.Categorical([KEY, "y"]),
         "o": [KEY, 3], "when": pd.to_datetime(["2024-01-01", "2024-01-02"])},
        index=[KEY, "bob"],
    )  # fmt: skip
    text = describe_namespace({"df": frame})
    assert _TAIL not in text
    assert "DataFrame shape (2, 6)" in text
    assert "1.5" in text
    assert "2024-01-02" in text
    assert "<str len 34>" in text
    assert "<str len 3>" in text  # the index label "bob"
