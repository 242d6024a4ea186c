"""Two real Unix users on a real JupyterHub, in Debian Chromium (issue 26, acceptance 1).

The hub (root, configurable-http-proxy, a shared password, the LocalProcessSpawner) starts each
user's JupyterLab as that user from the one shared install. Each user logs in, opens the
quickstart in their home and sends a panel message through their own provider fake; then:

* each user's chat is in their own data folder (``~/.local/share/zengine``) and nowhere else
  (not in the other home, not in /tmp), with 0700 folders and 0600 files;
* each user's agent, sandbox on, runs ``ls`` and ``cat`` on the other's home, data folder,
  chat log, key file, settings and notebook: every read fails and no result shows any of the
  other's names or text. One home is 0700, the other 0755 (open to others, as Debian 11's
  useradd and many hubs' ``adduser`` leave it): the sandbox hides it all the same;
* ``zengine settings`` run as one user shows neither user's key;
* after each agent wrote a scratch file to its ``$TMPDIR``, nothing of theirs in /tmp,
  /var/tmp or /dev/shm is open to other users.

Screenshots go to .ci-artifacts/hub/.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.notebooks.recording import copy_notebooks
from zengine_jupyter.testing import ProviderServer, Reply, ScriptedToolCall, provider_in_thread
from zengine_jupyter.testing.hub import Hub, hub_lab_settings, require_proxy, running_hub
from zengine_jupyter.testing.lab import launch_chromium
from zengine_jupyter.testing.lab_views import PANEL, open_panel
from zengine_jupyter.testing.mcp_chat import tool_results
from zengine_jupyter.testing.unix_users import (
    UnixUser,
    as_user,
    require_root,
    shared_view,
    unix_users,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(900)]

ARTIFACTS = Path(__file__).resolve().parents[2] / ".ci-artifacts" / "hub"
WAIT_MS = 120_000
NAMES = ("zjhalice", "zjhbob")
SHARED_TMP = (Path("/tmp"), Path("/var/tmp"), Path("/dev/shm"))


@dataclass
class Seat:
    """One user at the hub: the Unix user, their provider fake, key, page and chat marker."""

    user: UnixUser
    provider: ProviderServer
    key: str
    marker: str
    page: Any = None

    @property
    def data(self) -> Path:
        return self.user.home / ".local/share/zengine"


def _run_as(
    user: UnixUser, *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    argv = shared_view(as_user(user, [sys.executable, *args]))
    return subprocess.run(
        argv, env=user.env(), input=stdin, capture_output=True, text=True, cwd=user.home,
        timeout=120, check=False,
    )  # fmt: skip


def _chown_tree(user: UnixUser, top: Path) -> None:
    for path in [top, *top.rglob("*")]:
        os.lchown(path, user.uid, user.gid)


def _prepare(user: UnixUser, provider: ProviderServer, key: str) -> None:
    """The quickstart in the user's home, their settings (the provider fake, the sandbox on)
    and their key, stored by ``zengine auth login`` run as them."""
    copy_notebooks(user.home / "notebooks")
    config = user.home / ".config/zengine"
    config.mkdir(parents=True)
    (config / "settings.toml").write_text(
        f'[provider]\nkind = "anthropic"\nbase_url = "{provider.base_url}"\n'
        '[model]\nmain = "claude-sonnet-4-6"\n'
        "[shell.sandbox]\nenabled = true\nauto_allow = true\n"
    )
    _chown_tree(user, user.home / "notebooks")
    _chown_tree(user, user.home / ".config")
    hub_lab_settings(user)
    login = _run_as(user, "-m", "zengine_jupyter.cli", "auth", "login", "127.0.0.1", stdin=key)
    assert login.returncode == 0, login.stderr


@pytest.fixture(scope="module")
def seats() -> Iterator[list[Seat]]:
    require_root()
    require_proxy()
    with contextlib.ExitStack() as stack:
        users = stack.enter_context(unix_users(*NAMES))
        users[1].home.chmod(0o755)  # open to others, as Debian 11's useradd and many hubs leave it
        out = []
        for user in users:
            provider = stack.enter_context(provider_in_thread())
            key = f"sk-ant-{user.name}-{os.urandom(6).hex()}"
            provider.api_key = key  # a request with any other key is refused
            _prepare(user, provider, key)
            marker = f"note-of-{user.name}-{os.urandom(4).hex()}"
            out.append(Seat(user, provider, key, marker))
        yield out


@pytest.fixture(scope="module")
def hub(seats: list[Seat], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    with running_hub(tmp_path_factory.mktemp("hub"), [s.user for s in seats]) as running:
        print(f"hub answered after {running.started_s:.1f} s")
        yield running


@pytest.fixture(scope="module")
def browser(hub: Hub) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    from zengine_jupyter.testing.components import require_component

    chromium = require_component("chromium")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright, chromium)
        try:
            yield browser
        finally:
            browser.close()


def _login(browser: Any, hub: Hub, seat: Seat) -> Any:
    """A fresh browser context (its own cookies) logged in as the seat's user, on the
    quickstart in their JupyterLab, with the zengine panel open."""
    page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(f"{hub.url}/hub/login")
    page.locator("#username_input").fill(seat.user.name)
    page.locator("#password_input").fill(hub.password)
    page.locator("#login_submit").click()
    page.wait_for_url(f"**/user/{seat.user.name}/lab**")
    page.goto(f"{hub.url}/user/{seat.user.name}/lab/tree/notebooks/quickstart.ipynb?reset")
    page.wait_for_selector(".jp-Notebook .jp-Cell")
    try:
        open_panel(page, dismiss_kernel_dialog=True)
    except Exception:
        page.screenshot(path=str(ARTIFACTS / f"{seat.user.name}-no-panel.png"))
        raise
    return page


def _send(seat: Seat, text: str, *replies: Reply) -> list[Any]:
    """Send ``text`` from the seat's panel; the provider answers with ``replies``; returns the
    requests the turn made. An approval prompt, if one shows, is allowed."""
    page, provider = seat.page, seat.provider
    before = len(provider.requests)
    provider.add(*replies)
    page.locator(f"{PANEL} .jp-zengine-input").fill(text)
    page.locator(f"{PANEL} .jp-zengine-send").click()
    deadline = time.monotonic() + WAIT_MS / 1000
    while time.monotonic() < deadline:
        allow = page.locator(f"{PANEL} .jp-zengine-approval .jp-zengine-allow")
        if allow.count():
            allow.first.click()
        done = page.locator(f'{PANEL} .jp-zengine-turnbar[data-running="false"]')
        turns = [r for r in provider.requests[before:] if r.json and "messages" in r.json]
        if done.count() and len(turns) >= len(replies):
            return turns
        time.sleep(0.2)
    page.screenshot(path=str(ARTIFACTS / f"{seat.user.name}-turn-timeout.png"))
    raise TimeoutError(f"the turn of {seat.user.name} did not end")


def _files(top: Path) -> list[Path]:
    return [top, *top.rglob("*")] if top.exists() else []


def _holding(marker: str, paths: list[Path]) -> list[Path]:
    """Those of ``paths`` (files) whose bytes contain ``marker`` (root reads everything)."""
    found = []
    for path in paths:
        with contextlib.suppress(OSError):
            if path.is_file() and not path.is_symlink() and marker.encode() in path.read_bytes():
                found.append(path)
    return found


def _shared_owned(users: list[UnixUser]) -> list[tuple[int, int, Path]]:
    """``(uid, mode, path)`` of every entry the users own in /tmp, /var/tmp and /dev/shm
    (one ``find`` pass: /tmp of a busy machine holds many files)."""
    owned = [arg for u in users for arg in ("-o", "-uid", str(u.uid))][1:]
    argv = ["find", *map(str, SHARED_TMP), "-xdev", "(", *owned, ")", "-printf", "%U %m %p\\0"]
    listing = subprocess.run(argv, capture_output=True, check=False, timeout=300).stdout
    out = []
    for line in filter(None, listing.decode(errors="replace").split("\0")):
        uid, mode, path = line.split(" ", 2)
        out.append((int(uid), int(mode, 8), Path(path)))
    return out


def _open_to_others(path: Path, mode: int) -> bool:
    """Whether another user could read or write ``path``: it has o+r or o+w and every
    folder above it lets others in (o+x)."""
    return bool(mode & 0o006) and all(p.stat().st_mode & 0o001 for p in path.parents)


def test_two_users_chat_in_their_own_homes(browser: Any, hub: Hub, seats: list[Seat]) -> None:
    for seat in seats:
        seat.page = _login(browser, hub, seat)
        turns = _send(seat, f"Remember {seat.marker}", Reply.answer(f"Noted: {seat.marker}."))
        assert turns[0].headers.get("x-api-key") == seat.key
        seat.page.locator(f"{PANEL} .jp-zengine-item-assistant", has_text=seat.marker).wait_for()
        seat.page.screenshot(path=str(ARTIFACTS / f"{seat.user.name}-chat.png"))
    for seat, other in (seats, seats[::-1]):
        places = [*_files(seat.user.home), *_files(other.user.home)]
        holding = _holding(seat.marker, places)
        assert holding, f"{seat.user.name}'s chat was not written"
        assert all(seat.data in path.parents for path in holding), holding
        for path in _files(seat.data):
            mode = path.lstat().st_mode & 0o777
            assert mode == (0o700 if path.is_dir() else 0o600), f"{path} is {oct(mode)}"


def test_neither_agent_reaches_the_others_home(seats: list[Seat]) -> None:
    for seat, other in (seats, seats[::-1]):
        chat = next(p for p in _holding(other.marker, _files(other.data)) if p.suffix == ".jsonl")
        commands = {  # each command, and what its output would show if it had worked
            f"ls -la {other.user.home}": ("notebooks", ".config"),
            f"ls -la {other.data}": ("auth.json",),
            f"cat {chat}": (other.marker,),
            f"cat {other.data / 'auth.json'}": (other.key, "hosts"),
            f"cat {other.user.home / '.config/zengine/settings.toml'}": ("base_url", "[model]"),
            f"cat {other.user.home / 'notebooks/quickstart.ipynb'}": ("nbformat", "%%agent"),
        }
        calls = [ScriptedToolCall("Bash", {"command": c, "description": "look"}) for c in commands]
        replies = [Reply(tool_calls=(call,)) for call in calls]
        turns = _send(seat, "Look next door", *replies, Reply.answer("Nothing there."))
        results = [tool_results(turn.json) for turn in turns[1:]]
        assert len(results) == len(commands)
        for (command, shows), [(text, is_error)] in zip(commands.items(), results, strict=True):
            print(f"{seat.user.name}: {command!r} -> {text[:300]!r} (error={is_error})")
            if command.startswith("cat"):  # a listing may succeed: of an empty folder
                assert is_error or "exit code" in text.lower(), (command, text)
            for secret in (*shows, other.marker, other.key):
                assert secret not in text, (command, text)
        seat.page.screenshot(path=str(ARTIFACTS / f"{seat.user.name}-next-door.png"))


def test_settings_show_no_key(seats: list[Seat]) -> None:
    for seat, other in (seats, seats[::-1]):
        for flags in ((), ("--layers",), ("--json",)):
            shown = _run_as(seat.user, "-m", "zengine_jupyter.cli", "settings", *flags)
            assert shown.returncode == 0, shown.stderr
            assert other.key not in shown.stdout + shown.stderr
            assert seat.key not in shown.stdout + shown.stderr
        listed = _run_as(seat.user, "-m", "zengine_jupyter.cli", "auth", "list")
        assert listed.stdout.strip() == "127.0.0.1"  # their own host, never a key
        assert (seat.data / "auth.json").stat().st_mode & 0o777 == 0o600


def test_nothing_of_theirs_is_open_in_the_shared_tmp(seats: list[Seat]) -> None:
    """After each agent wrote a scratch file to its ``$TMPDIR`` (with a 022 umask), nothing the
    users own in /tmp, /var/tmp or /dev/shm is open to others, and no chat text is there."""
    for seat in seats:
        script = f'umask 022; echo {seat.marker} > "$TMPDIR/scratch.txt"; echo "$TMPDIR"'
        call = ScriptedToolCall("Bash", {"command": script, "description": "scratch"})
        turns = _send(seat, "Keep a scratch note", Reply(tool_calls=(call,)), Reply.answer("Ok."))
        [(text, is_error)] = tool_results(turns[1].json)
        assert not is_error, text
        print(f"{seat.user.name}: TMPDIR in the sandbox: {text.strip()!r}")
    shared = _shared_owned([s.user for s in seats])
    opened = [(path, oct(mode)) for _uid, mode, path in shared if _open_to_others(path, mode)]
    assert opened == []
    for seat in seats:
        mine = [path for uid, _mode, path in shared if uid == seat.user.uid]
        assert mine, "the scratch file is missing"
        assert [p.name for p in _holding(seat.marker, mine)] == ["scratch.txt"]
