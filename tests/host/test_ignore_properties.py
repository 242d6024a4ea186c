"""Property: the fingerprint covers exactly the files git's own listing keeps
(``.gitignore`` files at several depths and ``.git/info/exclude``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zengine_jupyter.host import fingerprint_tree, fingerprinted_files
from zengine_jupyter.testing.components import require_component

SEGMENT = st.sampled_from(
    ["a", "b", "x", "c.log", "d.py", "*", "*.log", "?.py", "**", "[ab]", "a*", "*b", "[!a]*"]
)
PATTERN = st.builds(
    lambda neg, lead, segs, trail: (
        ("!" if neg else "") + ("/" if lead else "") + "/".join(segs) + ("/" if trail else "")
    ),
    st.booleans(),
    st.booleans(),
    st.lists(SEGMENT, min_size=1, max_size=3),
    st.booleans(),
)
FOLDER = st.lists(st.sampled_from(["a", "b", "x"]), max_size=3).map(lambda p: "/".join(p))
FILE = st.sampled_from(["c.log", "d.py", "e.txt", "ab"])
TREE = st.lists(st.tuples(FOLDER, FILE), min_size=1, max_size=12)
GITIGNORES = st.dictionaries(
    st.sampled_from(["", "a", "a/b", "x", "b/a/x", ".git/info/exclude"]),
    st.lists(PATTERN, max_size=4),
)


def _git_listing(git: str, root: Path) -> set[str]:
    env = {"PATH": os.environ["PATH"], "HOME": str(root), "GIT_CONFIG_NOSYSTEM": "1"}
    out = subprocess.run(
        [git, "-C", str(root), "ls-files", "-co", "--exclude-standard", "-z"],
        capture_output=True,
        check=True,
        env=env,
    ).stdout.decode()
    return {p for p in out.split("\0") if p}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=TREE, ignores=GITIGNORES)
def test_fingerprint_counts_what_git_lists(
    tree: list[tuple[str, str]], ignores: dict[str, list[str]]
) -> None:
    git = require_component("git")
    root = Path(tempfile.mkdtemp(prefix="zengine-ignore-"))
    try:
        subprocess.run([git, "init", "-q", str(root)], check=True)
        for folder, name in tree:
            path = root / folder / name
            if any(p.is_file() for p in [path, *path.parents]):
                continue  # a file already stands where this folder would go
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("x")
        for folder, patterns in ignores.items():
            text = "\n".join(patterns) + "\n"
            if folder.startswith(".git/"):
                (root / folder).parent.mkdir(parents=True, exist_ok=True)
                (root / folder).write_text(text)
            elif (root / folder).is_dir():
                (root / folder / ".gitignore").write_text(text)
        listed = _git_listing(git, root)
        assert set(fingerprinted_files(root)) == listed
        assert fingerprint_tree(root).files == len(listed)
    finally:
        shutil.rmtree(root)
