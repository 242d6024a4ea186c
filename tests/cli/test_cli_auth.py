"""``zengine auth login/list/logout``, run as a user runs them."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

from zengine_jupyter.testing import ZENGINE, run_cli_sync

KEY = "sk-cli-0123456789abcdefXYZ"


def test_login_stores_the_key_0600_and_list_shows_hosts_only(zengine_home: Path) -> None:
    done = run_cli_sync("auth", "login", "https://OpenRouter.ai/api/v1", stdin=KEY + "\n")
    assert done.returncode == 0, done.stderr
    assert KEY not in done.stdout + done.stderr
    auth = zengine_home / "auth.json"
    assert stat.S_IMODE(auth.stat().st_mode) == 0o600
    assert json.loads(auth.read_text())["hosts"] == {"openrouter.ai": {"api_key": KEY}}
    assert run_cli_sync("auth", "login", "localhost:8080", stdin="local-key\n").returncode == 0
    listed = run_cli_sync("auth", "list")
    assert listed.returncode == 0
    assert listed.stdout.split() == ["localhost", "openrouter.ai"]
    assert KEY not in listed.stdout
    assert run_cli_sync("auth", "logout", "openrouter.ai").returncode == 0
    assert run_cli_sync("auth", "list").stdout.split() == ["localhost"]
    assert not [p for p in zengine_home.iterdir() if p.name.endswith(".tmp")]


def test_login_without_a_key_stores_nothing(zengine_home: Path) -> None:
    done = run_cli_sync("auth", "login", "api.openai.com", stdin="\n")
    assert done.returncode == 1
    assert "no key given" in done.stderr
    assert not (zengine_home / "auth.json").exists()
    assert "no stored keys" in run_cli_sync("auth", "list").stdout


def test_login_on_a_terminal_does_not_echo_the_key(zengine_home: Path) -> None:
    import pty
    import select

    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [ZENGINE, "auth", "login", "api.anthropic.com"], stdin=slave, stdout=slave, stderr=slave
    )
    os.close(slave)
    seen = b""
    try:
        while b"not shown" not in seen:
            ready, _, _ = select.select([master], [], [], 30)
            assert ready, f"no prompt; got {seen!r}"
            seen += os.read(master, 1024)
        os.write(master, KEY.encode() + b"\n")
        assert proc.wait(timeout=30) == 0
        while select.select([master], [], [], 0.2)[0]:
            try:
                chunk = os.read(master, 1024)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert b"stored the key for api.anthropic.com" in seen
    assert KEY.encode() not in seen
    stored = json.loads((zengine_home / "auth.json").read_text())
    assert stored["hosts"]["api.anthropic.com"]["api_key"] == KEY
