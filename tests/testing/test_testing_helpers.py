from __future__ import annotations

import pytest

from zengine_jupyter.testing.components import in_ci, require_component


def test_present_component_returns_its_path() -> None:
    path = require_component("git")
    assert path.endswith("git")


def test_missing_component_skips_outside_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    assert not in_ci()
    with pytest.raises(pytest.skip.Exception, match=r"apt-get install -y bubblewrap"):
        require_component("bwrap")


def test_missing_component_fails_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(pytest.fail.Exception, match=r"CI=true and chromium is not installed"):
        require_component("chromium")


def test_unknown_component_is_a_programming_error() -> None:
    with pytest.raises(KeyError, match="known"):
        require_component("nonesuch")
