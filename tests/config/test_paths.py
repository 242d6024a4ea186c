from __future__ import annotations

import os
from pathlib import Path

import pytest

from zengine_jupyter.config import (
    HOME_ENV,
    data_dir,
    find_project_root,
    notebook_path,
    user_config_dir,
)
from zengine_jupyter.protocol import ConfigError


def test_every_test_runs_with_its_own_home(zengine_home: Path) -> None:
    assert os.environ[HOME_ENV] == str(zengine_home)
    assert data_dir() == zengine_home
    assert user_config_dir() == zengine_home
    assert not any(zengine_home.iterdir())


def test_without_override_the_platform_folder_is_used() -> None:
    path = data_dir({})
    assert path.is_absolute()
    assert path.name == "zengine"


def test_a_relative_home_is_refused_with_a_hint() -> None:
    with pytest.raises(ConfigError, match="ZENGINE_HOME") as info:
        data_dir({HOME_ENV: "relative/dir"})
    assert info.value.hint


def test_project_root_is_the_enclosing_git_work_tree(tmp_path: Path) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    deep = tmp_path / "repo" / "analysis" / "notebooks"
    deep.mkdir(parents=True)
    assert find_project_root(deep) == tmp_path / "repo"
    notebook = deep / "a.ipynb"
    notebook.write_text("{}")
    assert find_project_root(notebook) == tmp_path / "repo"


def test_project_root_without_git_is_the_folder(tmp_path: Path) -> None:
    assert find_project_root(tmp_path) == tmp_path.resolve()


def test_notebook_path_comes_from_jupyter_server() -> None:
    assert notebook_path({"JPY_SESSION_NAME": "/home/a/x.ipynb"}) == Path("/home/a/x.ipynb")
    assert notebook_path({"JPY_SESSION_NAME": "x.ipynb"}) is None
    assert notebook_path({}) is None
