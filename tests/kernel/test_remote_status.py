"""Which project a remote kernel works on: its working directory when the notebook's folder
(the server's path, forwarded in ``JPY_SESSION_NAME``) is not on the kernel's machine."""

from __future__ import annotations

from pathlib import Path

import pytest

from zengine_jupyter.kernel._status import current_status


def test_a_server_path_not_on_this_machine_leaves_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "work" / "project"
    (project / ".git").mkdir(parents=True)
    (project / "src").mkdir()
    monkeypatch.chdir(project / "src")
    served = tmp_path / "server-root" / "analysis.ipynb"  # the server's folder: not here
    monkeypatch.setenv("JPY_SESSION_NAME", str(served))
    status = current_status()
    assert status.project_root == project
    assert status.notebook == served  # still names the page's notebook (live cells run there)


def test_a_notebook_folder_on_this_machine_still_decides(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notebooks = tmp_path / "repo" / "notebooks"
    notebooks.mkdir(parents=True)
    (tmp_path / "repo" / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JPY_SESSION_NAME", str(notebooks / "analysis.ipynb"))
    assert current_status().project_root == tmp_path / "repo"
