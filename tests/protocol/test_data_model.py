"""Every pydantic model of the engine is a ``DataModel``: built on first use (issue 25), and
every one of them builds, so a broken model fails here rather than at its first use in a turn."""

from __future__ import annotations

import subprocess
import sys

import pytest
from pydantic import BaseModel

from zengine_jupyter.protocol import DataModel
from zengine_jupyter.testing.modules import import_all, subclasses

import_all()
MODELS = subclasses(BaseModel)


def test_the_walk_finds_the_engine_s_models() -> None:
    names = {cls.__name__ for cls in MODELS}
    assert {"ToolResultRecord", "TurnStarted", "Settings", "McpArguments"} <= names
    assert len(MODELS) > 150


@pytest.mark.parametrize("cls", MODELS, ids=lambda cls: f"{cls.__module__}.{cls.__qualname__}")
def test_each_model_defers_its_build_and_builds(cls: type[BaseModel]) -> None:
    assert issubclass(cls, DataModel), f"{cls.__qualname__} derives from BaseModel directly"
    assert cls.model_config.get("defer_build") is True
    cls.model_rebuild(force=True)  # raises for a model whose schema cannot be built
    assert cls.__pydantic_complete__


def test_a_new_chat_s_models_are_not_built_on_import() -> None:
    """A fresh interpreter that imports the records and events builds none of them."""
    code = (
        "from zengine_jupyter.protocol import ToolResultRecord, TurnStarted, EngineEvent\n"
        "import zengine_jupyter.store._lines\n"
        "from pydantic._internal._mock_val_ser import MockValSer\n"
        "print(type(ToolResultRecord.__pydantic_validator__) is MockValSer,"
        " type(TurnStarted.__pydantic_validator__) is MockValSer)\n"
        "TurnStarted(session_id='s', turn_id='t', prompt='p')\n"
        "print(type(TurnStarted.__pydantic_validator__) is MockValSer)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["True", "True", "False"]
