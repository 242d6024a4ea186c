"""The fingerprint: what changes it, what does not, and that it skips what git ignores."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from zengine_jupyter.host import (
    compile_gitignore,
    fingerprint_tree,
    fingerprinted_files,
    workspace_fingerprint,
)
from zengine_jupyter.host._fingerprint import Fingerprint

IGNORE_TREE = {
    ".gitignore": "*.log\n!keep.log\nbuild/\n/top-only.txt\ndocs/**/*.tmp\n\\#hash.txt\ncache\n",
    "a.py": "x",
    "debug.log": "x",
    "keep.log": "x",
    "top-only.txt": "x",
    "#hash.txt": "x",
    "build/out.o": "x",
    "src/build/gen.c": "x",
    "src/top-only.txt": "x",
    "src/deep/trace.log": "x",
    "src/cache/blob": "x",
    "src/.gitignore": "*.c\n!keep.c\n",
    "src/keep.c": "x",
    "src/main.c": "x",
    "docs/a/b/x.tmp": "x",
    "docs/x.tmp": "x",
    "docs/readme.md": "x",
    "notes/[draft].md": "x",
    "space name.txt": "x",
}


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_ignore_rules_agree_with_git(tmp_path: Path, git: str) -> None:
    _write(tmp_path, IGNORE_TREE)
    subprocess.run([git, "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".git" / "info").mkdir(exist_ok=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("space name.txt\n")
    listed = subprocess.run(
        [git, "-C", str(tmp_path), "ls-files", "-co", "--exclude-standard", "-z"],
        capture_output=True,
        check=True,
        env={"PATH": os.environ["PATH"], "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1"},
    ).stdout.decode()
    expected = {p for p in listed.split("\0") if p}
    assert set(fingerprinted_files(tmp_path)) == expected
    assert fingerprint_tree(tmp_path).files == len(expected)


def test_names_with_newlines_are_matched_one_by_one(tmp_path: Path) -> None:
    _write(tmp_path, {".gitignore": "*.log\n", "a\nb.log": "x", "c.log": "x", "d.py": "x"})
    assert fingerprint_tree(tmp_path).files == 2  # .gitignore and d.py


def test_translation_edge_cases() -> None:
    rules = compile_gitignore("**/logs\nfoo/**\na/**/b\n*.py[co]\n")
    assert rules is not None
    assert rules.match("x/y/logs", is_dir=True)
    assert rules.match("foo/bar/baz.txt", is_dir=False)
    assert rules.match("foo", is_dir=True) is None
    assert rules.match("a/b", is_dir=True)
    assert rules.match("a/x/y/b", is_dir=True)
    assert rules.match("m.pyc", is_dir=False)
    assert rules.match("m.py", is_dir=False) is None
    assert compile_gitignore("# only a comment\n\n") is None


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    _write(tmp_path, {".gitignore": "*.log\n", "a.py": "one", "pkg/b.py": "two", "x.log": "l"})
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref")
    return tmp_path


def test_same_files_same_fingerprint(tree: Path) -> None:
    first = fingerprint_tree(tree)
    assert first == fingerprint_tree(tree)
    assert len(first.digest) == 16
    assert first.files == 3  # .gitignore, a.py, pkg/b.py


def test_content_change_with_new_size_or_mtime_changes_it(tree: Path) -> None:
    before = fingerprint_tree(tree)
    (tree / "pkg" / "b.py").write_text("three")
    after_size = fingerprint_tree(tree)
    assert after_size != before
    stat = (tree / "a.py").stat()
    os.utime(tree / "a.py", ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert fingerprint_tree(tree) != after_size


def test_new_removed_and_renamed_files_change_it(tree: Path) -> None:
    before = fingerprint_tree(tree)
    (tree / "c.py").write_text("")
    with_new = fingerprint_tree(tree)
    assert with_new != before
    (tree / "c.py").unlink()
    assert fingerprint_tree(tree) == before
    stat = (tree / "a.py").stat()
    (tree / "a.py").rename(tree / "z.py")
    os.utime(tree / "z.py", ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert fingerprint_tree(tree) != before


def test_ignored_files_and_git_folder_do_not_count(tree: Path) -> None:
    before = fingerprint_tree(tree)
    (tree / "x.log").write_text("much longer log text")
    (tree / "new.log").write_text("x")
    (tree / ".git" / "HEAD").write_text("another ref")
    (tree / ".git" / "index").write_text("i")
    assert fingerprint_tree(tree) == before


async def test_async_form_matches(tree: Path) -> None:
    assert await workspace_fingerprint(tree) == fingerprint_tree(tree)
    assert isinstance(fingerprint_tree(tree), Fingerprint)
