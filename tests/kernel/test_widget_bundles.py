"""The cell widgets' frontends are bundles built from the panel's TypeScript (labextension/src
/widgets + src/ui) and handed to anywidget as strings: self-contained ESM, no hand-written JS
left in the kernel package, and a clear stand-in when a checkout was never built."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from zengine_jupyter.kernel import _esm

if TYPE_CHECKING:
    from collections.abc import Iterator

BUNDLES: tuple[_esm.WidgetBundle, ...] = ("turn", "status", "rewind", "setup")


@pytest.fixture
def fresh_cache() -> Iterator[None]:
    _esm.widget_esm.cache_clear()
    _esm.widget_css.cache_clear()
    yield
    _esm.widget_esm.cache_clear()
    _esm.widget_css.cache_clear()


@pytest.mark.parametrize("name", BUNDLES)
def test_each_widget_is_a_built_self_contained_esm_module(name: _esm.WidgetBundle) -> None:
    source = _esm.widget_esm(name)
    assert "are not built" not in source, "run scripts/test (it builds labextension/)"
    assert re.search(r"export\s*\{[^}]*as default", source), "anywidget needs a default export"
    # nothing for the browser to fetch: JupyterLab's packages are not on a widget's page
    assert not re.search(r"^\s*import\s", source, re.M)
    assert "@jupyterlab/" not in source
    assert "@lumino/" not in source


def test_the_stylesheet_is_the_panels_and_uses_only_theme_variables() -> None:
    css = _esm.widget_css()
    base = (Path(_esm.__file__).parents[2] / "labextension" / "style" / "base.css").read_text()
    assert ".jp-zengine-widget" in css
    assert ".jp-zengine-tool" in css
    assert ".jp-zengine-tool" in base
    colours = re.findall(r"#[0-9a-fA-F]{3,8}\b|\brgba?\(|\bhsla?\(", css)
    assert colours == [], f"hard-coded colours break the dark theme: {colours}"


def test_no_widget_javascript_is_left_in_the_kernel_package() -> None:
    kernel = Path(_esm.__file__).parent
    assert sorted(p.name for p in kernel.glob("*.js")) == []
    assert sorted(p.name for p in kernel.glob("*.css")) == []


def test_an_unbuilt_checkout_shows_how_to_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_cache: None
) -> None:
    monkeypatch.setattr(_esm, "WIDGETS_DIR", tmp_path / "missing")
    source = _esm.widget_esm("turn")
    assert "the cell widgets are not built" in source
    assert "jlpm build" in source
    assert source.startswith("export default { render(")
    assert _esm.widget_css() == ""
