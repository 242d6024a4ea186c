"""Acceptance 2: inside the sandbox, the project, temp and caches are writable and real tools
run: python (asyncio too), pip into a venv in the project, git, node."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import sys
import zipfile
from pathlib import Path

import pytest

from zengine_jupyter.host import RunOptions
from zengine_jupyter.host.sandbox import (
    CommandOrigin,
    detect_backend,
    plan_shell,
    run_planned,
    settle_placeholders,
)
from zengine_jupyter.testing.components import require_component
from zengine_jupyter.testing.sandbox import SandboxLayout, make_sandbox_layout

PY = sys.executable


@pytest.fixture(scope="module")
def layout(tmp_path_factory: pytest.TempPathFactory) -> SandboxLayout:
    require_component("bwrap")
    require_component("git")
    return asyncio.run(make_sandbox_layout(tmp_path_factory.mktemp("inside")))


def sandboxed(layout: SandboxLayout, script: str, cwd: Path | None = None) -> tuple[int, str, str]:
    async def go() -> tuple[int, str, str]:
        backend = await detect_backend()
        plan = plan_shell(
            layout.options(), backend, CommandOrigin.AGENT_BASH, script, cwd or layout.project
        )
        assert plan.sandboxed
        done = await run_planned(plan, RunOptions(env=layout.env(), timeout_s=60))
        return done.returncode, done.text(), done.stderr.decode("utf-8", errors="replace")

    return asyncio.run(go())


def test_writes_to_project_temp_cache_and_additional_directory(layout: SandboxLayout) -> None:
    script = (
        "set -e; echo p > out.txt; mkdir -p build/x && touch build/x/a; "
        f'echo t > "$TMPDIR/t.txt"; echo c > {layout.home}/.cache/c.txt; '
        f"echo s > {layout.second}/s.txt; mv out.txt moved.txt; rm build/x/a"
    )
    code, _, err = sandboxed(layout, script)
    assert code == 0, err
    assert (layout.project / "moved.txt").read_text() == "p\n"
    assert (layout.temp / "t.txt").read_text() == "t\n"
    assert (layout.home / ".cache/c.txt").read_text() == "c\n"
    assert (layout.second / "s.txt").read_text() == "s\n"
    assert not (layout.project / "build/x/a").exists()


def test_python_runs_with_asyncio_and_local_tcp(layout: SandboxLayout) -> None:
    code = (
        "import asyncio, socket\n"
        "async def main():\n"
        "    srv = await asyncio.start_server(lambda r, w: w.close(), '127.0.0.1', 0)\n"
        "    port = srv.sockets[0].getsockname()[1]\n"
        "    r, w = await asyncio.open_connection('127.0.0.1', port)\n"
        "    w.close(); srv.close(); await srv.wait_closed()\n"
        "    a, b = socket.socketpair(); a.send(b'ok'); print(b.recv(2).decode())\n"
        "asyncio.run(main())\n"
    )
    (layout.project / "net_inside.py").write_text(code)
    rc, out, err = sandboxed(layout, f"{PY} net_inside.py")
    assert rc == 0, err
    assert out.strip() == "ok"


def _wheel(folder: Path) -> Path:
    """A minimal pure-Python wheel (built by hand: no network, no build backend)."""
    name = "zsbx_demo-1.0-py3-none-any.whl"
    files = {
        "zsbx_demo/__init__.py": b"VALUE = 42\n",
        "zsbx_demo-1.0.dist-info/METADATA": (
            b"Metadata-Version: 2.1\nName: zsbx-demo\nVersion: 1.0\n"
        ),
        "zsbx_demo-1.0.dist-info/WHEEL": (
            b"Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        ),
    }
    record = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append("zsbx_demo-1.0.dist-info/RECORD,,")
    out = folder / name
    with zipfile.ZipFile(out, "w") as zf:
        for path, data in files.items():
            zf.writestr(path, data)
        zf.writestr("zsbx_demo-1.0.dist-info/RECORD", "\n".join(record) + "\n")
    return out


def test_pip_installs_into_a_venv_in_the_project(layout: SandboxLayout) -> None:
    wheel = _wheel(layout.project)
    script = (
        f"set -e; {PY} -m venv --without-pip .venv; "
        f"{PY} -m pip --python .venv/bin/python install -q --no-index --no-deps {wheel}; "
        ".venv/bin/python -c 'import zsbx_demo; print(zsbx_demo.VALUE)'"
    )
    code, out, err = sandboxed(layout, script)
    assert code == 0, err
    assert out.strip().splitlines()[-1] == "42"
    assert list((layout.project / ".venv/lib").glob("python*/site-packages/zsbx_demo"))


def test_git_status_add_and_commit(layout: SandboxLayout) -> None:
    script = (
        "set -e; git status --short; git add data.csv; "
        "git -c user.name=agent -c user.email=agent@example.invalid commit -qm data; "
        "git log --oneline"
    )
    code, out, err = sandboxed(layout, script)
    assert code == 0, err
    assert out.strip().endswith("data")


def test_node_runs_and_writes_in_the_project(layout: SandboxLayout) -> None:
    node = require_component("node")
    code, out, err = sandboxed(
        layout,
        f"{node} -e \"require('fs').writeFileSync('n.txt', 'ok'); console.log(process.version)\"",
    )
    assert code == 0, err
    assert out.startswith("v")
    assert (layout.project / "n.txt").read_text() == "ok"


def test_a_timeout_stops_everything_inside(layout: SandboxLayout) -> None:
    """bwrap's --new-session puts the command outside the process group host.run kills; the
    pid namespace and --die-with-parent still take every process down with bwrap."""
    import os
    import time

    from zengine_jupyter.protocol import ProcessTimeoutError

    marker = f"31.{os.getpid()}"

    async def go() -> None:
        backend = await detect_backend()
        script = f"sleep {marker} & sleep {marker}; echo never"
        plan = plan_shell(
            layout.options(), backend, CommandOrigin.AGENT_BASH, script, layout.project
        )
        with pytest.raises(ProcessTimeoutError):
            await run_planned(plan, RunOptions(timeout_s=0.5))

    asyncio.run(go())

    def leftovers() -> list[str]:
        found = []
        for entry in Path("/proc").iterdir():
            try:
                if entry.name.isdigit() and marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(entry.name)
            except OSError:
                continue
        return found

    deadline = time.monotonic() + 3
    while leftovers():
        assert time.monotonic() < deadline, f"still running: {leftovers()}"
        time.sleep(0.02)


def test_open_planned_streams_a_sandboxed_command(layout: SandboxLayout) -> None:
    from zengine_jupyter.host.sandbox import open_planned

    async def go() -> bytes:
        backend = await detect_backend()
        script = "echo one; echo two >&2; touch streamed.txt; echo x > /etc/nope"
        plan = plan_shell(
            layout.options(), backend, CommandOrigin.BACKGROUND_SHELL, script, layout.project
        )
        async with open_planned(plan, RunOptions(env=layout.env()), merge_stderr=True) as proc:
            assert proc.stdout is not None
            out = await proc.stdout.read()
            assert await proc.wait() == 1
        return out

    out = asyncio.run(go())
    assert b"one\ntwo\n" in out
    assert b"Read-only file system" in out
    assert (layout.project / "streamed.txt").exists()
    settle_placeholders()
    assert not (layout.project / ".mcp.json").exists(), "placeholders go with the block"


def test_every_proc_knob_is_read_only_inside(layout: SandboxLayout) -> None:
    """/proc/sys, sysrq-trigger, irq, bus and fs are read-only mounts inside: ours or the ones
    bubblewrap's --proc makes itself (irq and bus are its own; sys it leaves to us)."""
    code, out, err = sandboxed(layout, "cat /proc/self/mountinfo")
    assert code == 0, err
    ro_mounts = {
        fields[4] for fields in (line.split() for line in out.splitlines()) if "ro" in fields[5]
    }
    for knob in ("/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs"):
        if Path(knob).exists():
            assert knob in ro_mounts, f"{knob} is writable inside: {sorted(ro_mounts)}"
    code, _, err = sandboxed(layout, "echo x > /proc/sys/kernel/core_pattern")
    assert code != 0
    assert "Read-only file system" in err
