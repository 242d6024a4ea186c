"""Recording: ``zengine cassette record`` runs a notebook live against the local provider
server (real OpenAI wire format) and reproduces the committed cassette; it refuses to record
without a live model and leaves the old cassette alone on failure. Replay: a notebook that
drifted from its recording fails with the cassette and the step named."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from tests.notebooks.recording import (
    NOTEBOOKS,
    copy_notebooks,
    environment,
    execute_notebook,
    record_scripted,
)
from tests.notebooks.scripted import SCRIPTS
from zengine_jupyter.cli import main
from zengine_jupyter.llm import read_cassette
from zengine_jupyter.protocol import ToolCallEnd


def _calls(path: Path) -> list[tuple[list[str], list[tuple[str, str]]]]:
    """Each step's expected user text and its answer's tool calls (ids differ per run)."""
    _, steps = read_cassette(path)
    return [
        (step.expect.texts,
         [(e.name, json.dumps(e.input, sort_keys=True))
          for e in step.events if isinstance(e, ToolCallEnd)])
        for step in steps
    ]  # fmt: skip


def test_every_notebook_has_a_cassette_and_a_script() -> None:
    notebooks = {p.stem for p in NOTEBOOKS.glob("*.ipynb")}
    assert notebooks == {"quickstart", "data-project", "integrations", "safety"}
    assert set(SCRIPTS) == notebooks
    for name in notebooks:
        header, steps = read_cassette(NOTEBOOKS / "cassettes" / f"{name}.jsonl")
        assert header.notebook == f"{name}.ipynb"
        assert header.note.startswith("scripted")
        assert len(steps) == len(SCRIPTS[name])


@pytest.mark.e2e
@pytest.mark.slow
def test_recording_reproduces_the_committed_cassette(tmp_path: Path) -> None:
    copy = copy_notebooks(tmp_path / "notebooks")
    out = copy / "cassettes" / "quickstart.jsonl"
    out.unlink()
    ok, message, unused = record_scripted("quickstart", copy, out)
    assert ok, message
    assert unused == 0
    assert message.startswith("recorded 6 model answers from 127.0.0.1")
    assert _calls(out) == _calls(NOTEBOOKS / "cassettes" / "quickstart.jsonl")
    assert not list(out.parent.glob(".*.recording"))
    # the run rewound its own changes: the copy's project is as it was
    assert (copy / "greetings" / "greet.py").read_bytes() == (
        NOTEBOOKS / "greetings" / "greet.py"
    ).read_bytes()


def test_record_needs_a_live_model_and_keeps_the_old_cassette(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nb = tmp_path / "nb.ipynb"
    nbformat.write(nbformat.v4.new_notebook(), nb)
    old = tmp_path / "cassettes" / "nb.jsonl"
    old.parent.mkdir()
    old.write_text("kept\n")
    with environment():
        status = main(["cassette", "record", str(nb)])
    assert status == 1
    err = capsys.readouterr().err
    assert "recording needs a live model: set ANTHROPIC_API_KEY or OPENAI_API_KEY" in err
    assert old.read_text() == "kept\n"


@pytest.mark.e2e
@pytest.mark.slow
def test_a_drifted_notebook_names_the_cassette_and_the_step(tmp_path: Path) -> None:
    copy = copy_notebooks(tmp_path / "notebooks")
    nb_path = copy / "quickstart.ipynb"
    nb = nbformat.read(nb_path, as_version=4)
    first = next(c for c in nb.cells if c.source.startswith("%%agent"))
    first.source = first.source.replace("in capitals", "in lower case")
    nb.cells = nb.cells[: nb.cells.index(first) + 1]
    nbformat.write(nb, nb_path)
    with environment():
        texts = execute_notebook(nb_path, tmp_path / "kernel.log")
    out = texts[-1]
    assert "error: this notebook's recording has no answer for a new message: connect a " in out
    assert "(cassette " in out, out
    assert "quickstart.jsonl diverged at step 1 of 6" in out, out
    assert "returns the greeting in lower case" in out, out
    assert "(turn failed" in out, out
    assert (copy / "greetings" / "greet.py").read_bytes() == (
        NOTEBOOKS / "greetings" / "greet.py"
    ).read_bytes()
