"""Issue 18 acceptance 2 (property): the gate never allows a write outside the project or to a
protected path without asking, in any mode, whatever allow rules say.

Paths are generated from pieces over a real folder: symlinks that lead out of the project, into
``.git`` and around inside it, ``..``, absolute paths, unicode names, case variants (``.GIT``:
Linux is case-sensitive, but the gate compares these names case-insensitively because macOS and
Windows are not, so ``.GIT/config`` is protected too) and nested repositories. Bash writes
(``echo x > PATH``) are checked the same way, except that in bypass mode and under the bare rule
``Bash`` (every command) a write outside the project that is not protected runs: the sandbox
confines those. The oracle below is written independently of ``policy/_paths.py``: it resolves
with ``os.path.realpath`` and looks at the path's names.
"""

from __future__ import annotations

import os
import posixpath
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zengine_jupyter.policy import CallView, PermissionGate, PermissionPolicy

PIECES = [
    "src", "a.py", "ünïcode.py", "ç", ".git", ".GIT", ".Git", "config", "hooks", "pre-commit",
    "sub", "..", ".", ".z-engine", ".Z-ENGINE", "settings.toml", ".claude", ".mcp.json",
    ".MCP.json", "link_out", "link_git", "link_in", "link_sub_git", "bare.git", "HEAD",
    ".bashrc", ".ipython", "profile_default", "startup", ".ssh",
]  # fmt: skip
BASES = ["root", "root", "root", "outside", "home", "absolute_root"]
MODES = ["default", "accept_edits", "bypass"]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("prop")
    root, outside, home = base / "proj", base / "outside", base / "home"
    for folder in (root / "src", outside, home / ".ipython" / "profile_default" / "startup"):
        folder.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "init", "-q", str(root / "sub")], check=True)
    subprocess.run(["git", "init", "-q", "--bare", str(root / "bare.git")], check=True)
    (root / "link_out").symlink_to(outside)
    (root / "link_git").symlink_to(root / ".git")
    (root / "link_in").symlink_to(root / "src")
    (root / "link_sub_git").symlink_to(root / "sub" / ".git")
    return {"root": root, "outside": outside, "home": home}


def rules(world: dict[str, Path]) -> list[str]:
    return [
        "Edit", "Write", "Edit(**)", "Write(**)", "Edit(*)", "Edit(**/*.py)", "Edit(.git/**)",
        "Edit(**/config)", "Write(/**)", f"Edit({world['outside']}/**)", "Edit(~/**)",
        "Write(../**)", "Edit(*.py)", "Write(**/.mcp.json)", "Bash", "Bash(echo:*)",
        "Bash(cp:*)", "Bash(*)",
    ]  # fmt: skip


def is_outside(path: Path, world: dict[str, Path]) -> bool:
    root = os.path.realpath(world["root"])
    resolved = os.path.realpath(path)
    return not (resolved == root or resolved.startswith(root + "/")) and not is_protected_name(
        resolved, world
    )


def is_protected_name(resolved: str, world: dict[str, Path]) -> bool:
    """The user's startup files (outside the project, protected all the same)."""
    home = str(world["home"])
    rel = resolved[len(home) + 1 :].casefold() if resolved.startswith(home + "/") else ""
    return rel in (".bashrc", ".ssh") or rel.startswith(
        (".ssh/", ".ipython/profile_default/startup")
    )


def is_forbidden(path: Path, world: dict[str, Path]) -> bool:
    """The oracle: outside the project (resolved), or a protected name on either form."""
    root = os.path.realpath(world["root"])
    lexical = posixpath.normpath(str(path))
    resolved = os.path.realpath(path)
    if not (resolved == root or resolved.startswith(root + "/")):
        return True
    for form in (lexical, resolved):
        if not form.startswith(str(world["root"]) + "/") and not form.startswith(root + "/"):
            continue
        rel = form.split("/proj/", 1)[-1].split("/")
        names = [part.casefold() for part in rel]
        if {".git", ".z-engine", ".claude"} & set(names) or names[-1] == ".mcp.json":
            return True
    bare = os.path.realpath(world["root"] / "bare.git")  # a bare repository: all of it
    return any(f == bare or f.startswith(bare + "/") for f in (lexical, resolved))


@st.composite
def paths(draw: st.DrawFn, world: dict[str, Path]) -> Path:
    base = draw(st.sampled_from(BASES))
    pieces = draw(st.lists(st.sampled_from(PIECES), min_size=1, max_size=5))
    start = {
        "root": world["root"],
        "absolute_root": world["root"].resolve(),
        "outside": world["outside"],
        "home": world["home"],
    }[base]
    return Path(str(start) + "/" + "/".join(pieces))


@pytest.fixture(autouse=True, scope="module")
def _home(world: dict[str, Path]) -> object:
    saved = os.environ.get("HOME")
    os.environ["HOME"] = str(world["home"])
    yield None
    if saved is not None:
        os.environ["HOME"] = saved


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_no_write_outside_or_to_a_protected_path_runs_without_asking(
    world: dict[str, Path], data: st.DataObject
) -> None:
    path = data.draw(paths(world))
    mode = data.draw(st.sampled_from(MODES))
    allow = data.draw(st.lists(st.sampled_from(rules(world)), max_size=4, unique=True))
    tool = data.draw(st.sampled_from(["Edit", "Write", "NotebookEdit", "Bash"]))
    gate = PermissionGate(world["root"], PermissionPolicy.from_lists(mode=mode, allow=allow))  # type: ignore[arg-type]
    if tool == "Bash":
        call = CallView("Bash", "execute", command=f"echo x > '{path}'")
    else:
        call = CallView(tool, "edit", paths=(path,))
    decision = gate.decide(call)
    if tool == "Bash" and (mode == "bypass" or "Bash" in allow) and is_outside(path, world):
        return  # every command runs (the sandbox confines it); protected paths still ask below
    if is_forbidden(path, world):
        assert decision.action != "allow", (str(path), mode, allow, decision.reason)


def test_the_oracle_sees_both_outcomes(world: dict[str, Path]) -> None:
    """The property is not vacuous: the same gate allows writes the oracle finds harmless."""
    root = world["root"]
    gate = PermissionGate(root, PermissionPolicy.from_lists(mode="accept_edits"))
    assert not is_forbidden(root / "src" / "a.py", world)
    assert gate.decide(CallView("Edit", "edit", paths=(root / "link_in" / "a.py",))).action == (
        "allow"
    )
    for bad in ("link_git/config", "link_sub_git/hooks/x", ".GIT/config", "bare.git/config",
                "link_out/x", "src/../../outside/x"):  # fmt: skip
        assert is_forbidden(root / bad, world), bad
        decision = gate.decide(CallView("Write", "edit", paths=(root / bad,)))
        assert decision.action == "ask", (bad, decision.reason)
