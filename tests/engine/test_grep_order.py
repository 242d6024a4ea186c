"""Grep lists files in the order ``Path`` parts sort in; its key compares strings instead of
lists of parts (``_grep_read._path_order``), which must give exactly the same order."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from zengine_jupyter.engine.tools._grep_read import _path_order

_PART = st.text(alphabet="ab-._ Z0é~\u00ff\u4e00", min_size=1, max_size=4)
_PATH = st.lists(_PART, min_size=1, max_size=4).map(lambda parts: "/p/" + "/".join(parts))


@given(st.lists(_PATH, max_size=40))
def test_the_order_is_that_of_the_parts(paths: list[str]) -> None:
    assert sorted(paths, key=_path_order) == sorted(paths, key=lambda p: p.split("/"))


def test_a_shorter_name_comes_before_its_longer_sibling_s_folder() -> None:
    paths = ["/p/a-b/x.py", "/p/a/z.py", "/p/a.py", "/p/a/b/c.py"]
    assert sorted(paths, key=_path_order) == ["/p/a/b/c.py", "/p/a/z.py", "/p/a-b/x.py", "/p/a.py"]
