"""The sandbox as most users run it: bubblewrap started by an ordinary user (user namespaces).

The suite runs as root; here the same argv is started as ``nobody`` (setpriv) on a layout that
user owns. Skipped when this machine does not let an ordinary user create namespaces.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from zengine_jupyter.host import RunOptions, run
from zengine_jupyter.host.sandbox import (
    CommandOrigin,
    detect_backend,
    launch,
    plan_shell,
    settle_placeholders,
)
from zengine_jupyter.testing.components import require_component
from zengine_jupyter.testing.sandbox import SandboxLayout, make_sandbox_layout

NOBODY = 65534
SYSTEM_PY = shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin") or "python3"
AS_NOBODY = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]


@pytest.fixture(scope="module")
def layout() -> Iterator[SandboxLayout]:
    require_component("bwrap")
    require_component("git")
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root (to become nobody) and setpriv")
    base = Path(tempfile.mkdtemp(prefix="zengine-unpriv-", dir="/tmp"))
    try:
        base.chmod(0o755)
        made = asyncio.run(make_sandbox_layout(base))
        for folder, _, files in os.walk(base):
            os.chown(folder, NOBODY, NOBODY)
            for name in files:
                os.chown(Path(folder) / name, NOBODY, NOBODY, follow_symlinks=False)
        yield made
    finally:
        shutil.rmtree(base, ignore_errors=True)


def as_nobody(layout: SandboxLayout, script: str) -> tuple[int, str]:
    async def go() -> tuple[int, str]:
        backend = await detect_backend()
        plan = plan_shell(
            layout.options(), backend, CommandOrigin.AGENT_BASH, script, layout.project
        )
        with launch(plan) as spec:
            done = await run(
                [*AS_NOBODY, *spec.argv],
                RunOptions(cwd=spec.cwd, env={**layout.env(), **spec.env}, pass_fds=spec.pass_fds),
            )
        return done.returncode, done.stderr.decode("utf-8", errors="replace")

    return asyncio.run(go())


def test_an_ordinary_user_is_confined_the_same_way(
    layout: SandboxLayout, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the engine's data folder is the user's own, as it is outside the suite (the sandbox
    # mounts an empty folder over it, so bwrap must reach it as that user)
    data = layout.base / "zengine-data"
    data.mkdir(exist_ok=True)
    os.chown(data, NOBODY, NOBODY)
    monkeypatch.setenv("ZENGINE_HOME", str(data))
    code, err = as_nobody(layout, "id -u")
    if code != 0 and "namespace" in err.lower():
        pytest.skip(f"this machine refuses user namespaces to ordinary users: {err.strip()}")
    assert code == 0, err
    code, err = as_nobody(layout, "echo ok > inside.txt")
    assert code == 0, err
    assert (layout.project / "inside.txt").read_text() == "ok\n"
    attempts = {
        "echo x > .git/hooks/pre-commit": "Read-only file system",
        "git config core.hooksPath /tmp/x": "Device or resource busy|could not write config",
        "echo x > .mcp.json": "Is a directory",
        "mv .git .git-old": "Device or resource busy",
        f"echo x > {layout.home}/secret.txt": "Read-only file system",
        f"{SYSTEM_PY} -c 'import socket; socket.socket(socket.AF_UNIX)'": "not permitted",
        "unshare -Urm sh -c 'mount -o remount,rw / && touch /etc/zz'": "permitted|denied|superuser",
    }

    for script, how in attempts.items():
        code, err = as_nobody(layout, script)
        assert code != 0, f"{script!r} succeeded as an ordinary user"
        assert re.search(how, err), f"{script!r} failed differently: {err}"
    assert not (layout.project / ".git/hooks/pre-commit").exists()
    settle_placeholders()
    assert not (layout.project / ".mcp.json").exists()
    assert (layout.project / ".git").is_dir()
