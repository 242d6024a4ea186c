"""The panel and ``%%agent`` with a "remote" kernel (issue 26, acceptance 3).

The kernel is started by a kernel provisioner (``zengine_jupyter.testing.remote_kernel``, the
interface Enterprise Gateway and other remote launchers implement) under ANOTHER Unix user,
created for this module, in a working directory of that user's own (``~/work/project``), with
its own environment and its own copy of the connection file. The server runs as root from a
private folder the kernel user cannot even list; the notebook's ``JPY_SESSION_NAME`` names a
file there (a gateway that forwards it). So nothing the panel or the widgets need may come from
the server's filesystem: the project is the kernel's working directory, the data folder is the
kernel user's home, and every answer travels over the kernel's comm.

In Chromium: a panel message through the local provider with its approval, a code rewind, an
``%%agent`` cell answered in its widget, and a conversation rewind.
"""

from __future__ import annotations

import os
import pwd
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import zengine_jupyter
from zengine_jupyter.testing import (
    ProviderServer,
    Reply,
    ScriptedToolCall,
    provider_in_thread,
    provider_settings,
)
from zengine_jupyter.testing.components import require_component
from zengine_jupyter.testing.lab import LabServer, chromium_page, running_lab, write_notebook
from zengine_jupyter.testing.lab_views import PANEL, open_panel, rewind
from zengine_jupyter.testing.remote_kernel import (
    install_remote_kernel,
    kernel_python,
    run_as,
    unix_user,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
CODE_ROOT = Path(zengine_jupyter.__file__).resolve().parents[1]
ARTIFACTS = REPO / ".ci-artifacts" / "remote-kernel"
WAIT_MS = 60_000
ORIGINAL = "RATE = 1\nprint('rate', RATE)\n"
KERNEL = "zengine-remote"
_WHO = (
    "import os, pathlib; "
    "print('who', os.getuid(), pathlib.Path.cwd(), os.environ['JPY_SESSION_NAME'], "
    "os.environ.get('ZENGINE_HOME'))"
)


@pytest.fixture(scope="module")
def account() -> Iterator[pwd.struct_passwd]:
    if os.geteuid() != 0:
        pytest.skip("creating the kernel's Unix user needs root (CI runs as root)")
    require_component("node")  # the panel is built by scripts/test only where node is
    with unix_user("zkrem") as user:
        yield user


@pytest.fixture(scope="module")
def project(account: pwd.struct_passwd) -> Path:
    """The kernel user's project, its working directory: ~/work/project, a git work tree."""
    home = Path(account.pw_dir)
    folder = home / "work" / "project"
    run_as(account.pw_name, ["mkdir", "-p", str(folder)])
    run_as(account.pw_name, ["git", "init", "-q", str(folder)])
    (folder / "pipeline.py").write_text(ORIGINAL)
    os.chown(folder / "pipeline.py", account.pw_uid, account.pw_gid)
    return folder


@pytest.fixture(scope="module")
def provider() -> Iterator[ProviderServer]:
    with provider_in_thread() as server:
        yield server


@pytest.fixture(scope="module")
def lab(
    tmp_path_factory: pytest.TempPathFactory,
    account: pwd.struct_passwd,
    project: Path,
    provider: ProviderServer,
) -> Iterator[LabServer]:
    home = Path(account.pw_dir)
    # the kernel user's own settings (~/.config/zengine): the provider is the local fake
    run_as(account.pw_name, ["mkdir", "-p", str(home / ".config" / "zengine")])
    settings = home / ".config" / "zengine" / "settings.toml"
    settings.write_text(provider_settings(provider.base_url))
    os.chown(settings, account.pw_uid, account.pw_gid)

    root = tmp_path_factory.mktemp("server-root")  # root's, 0700: the kernel user cannot look
    write_notebook(root / "analysis.ipynb", "")
    _kernelspec(root / "analysis.ipynb")
    private = tmp_path_factory.mktemp("private")
    python = kernel_python(account.pw_name, CODE_ROOT, home / ".kernel-python")
    install_remote_kernel(
        private / "jupyter",
        private / "site",
        name=KERNEL,
        python=python,
        user=account.pw_name,
        cwd=project,
        env={"PYTHONPATH": str(CODE_ROOT), "ANTHROPIC_API_KEY": "test-key"},
    )
    jupyter_path = [str(private / "jupyter"), os.environ.get("JUPYTER_PATH", "")]
    python_path = [os.environ.get("PYTHONPATH", str(CODE_ROOT)), str(private / "site")]
    env = {
        "JUPYTER_PATH": os.pathsep.join(p for p in jupyter_path if p),
        "PYTHONPATH": os.pathsep.join(p for p in python_path if p),
        # the server's own zengine data folder: the engine must never write there
        "ZENGINE_HOME": str(private / "server-zengine"),
    }
    with running_lab(root, tmp_path_factory.mktemp("lab-state"), env=env) as server:
        yield server
    assert not (private / "server-zengine").exists()


def _kernelspec(path: Path) -> None:
    import nbformat

    nb = nbformat.read(path, as_version=4)
    nb.metadata["kernelspec"] = {"name": KERNEL, "display_name": "remote", "language": "python"}
    nbformat.write(nb, path)


@pytest.fixture(scope="module")
def page(lab: LabServer) -> Iterator[Any]:
    with chromium_page(ARTIFACTS, size=(1400, 900), timeout_ms=WAIT_MS) as tab:
        tab.goto(lab.lab_url("analysis.ipynb"))
        open_panel(tab)
        yield tab


# ---------------------------------------------------------------- helpers


def _panel(page: Any, selector: str) -> Any:
    return page.locator(f"{PANEL} {selector}")


def _last_user(page: Any) -> str:
    return str(_panel(page, ".jp-zengine-item-user .jp-zengine-body").last.inner_text())


def _wait_turn_over(page: Any) -> None:
    page.wait_for_selector(f'{PANEL} .jp-zengine-turnbar[data-running="false"]')


def _edit_turn(server: ProviderServer, old: str, new: str, done: str) -> None:
    """A turn that reads pipeline.py, edits ``old`` into ``new`` (approval) and says ``done``."""
    edit = {"path": "pipeline.py", "old_string": old, "new_string": new}
    server.add(
        Reply(tool_calls=(ScriptedToolCall("Read", {"path": "pipeline.py"}),)),
        Reply(tool_calls=(ScriptedToolCall("Edit", edit),)),
        Reply(text=tuple(re.findall(r"\S+\s*", done))),
    )


def _cell(page: Any) -> Any:
    return page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell").first


def _run_cell(page: Any, source: str) -> Any:
    """Replace the first cell's source and run it (Ctrl+Enter keeps it selected); the cell."""
    cell = _cell(page)
    cell.locator(".cm-content").click()
    page.keyboard.press("Control+A")
    page.keyboard.insert_text(source)
    page.keyboard.press("Control+Enter")
    return cell


def _shot(page: Any, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


# ---------------------------------------------------------------- the tests


def test_the_kernel_runs_as_the_other_user_in_its_folder(
    page: Any, lab: LabServer, account: pwd.struct_passwd, project: Path
) -> None:
    cell = _run_cell(page, _WHO)
    output = cell.locator(".jp-OutputArea-output", has_text="who")
    output.wait_for()
    notebook = str(lab.root / "analysis.ipynb")  # forwarded, as a gateway would
    assert output.inner_text().split() == ["who", str(account.pw_uid), str(project), notebook,
                                           "None"]  # fmt: skip
    # the server's folder is not the kernel user's to look into
    with pytest.raises(subprocess.CalledProcessError):
        run_as(account.pw_name, ["ls", str(lab.root)])


def test_panel_message_approval_and_code_rewind(
    page: Any, account: pwd.struct_passwd, project: Path, provider: ProviderServer
) -> None:
    pipeline = project / "pipeline.py"
    _edit_turn(provider, "RATE = 1", "RATE = 2", "RATE is 2 now.")
    _panel(page, ".jp-zengine-input").fill("Set RATE to 2")
    _panel(page, ".jp-zengine-send").click()
    prompt = _panel(page, ".jp-zengine-approval").last
    prompt.locator(".jp-zengine-allow").wait_for()
    card = _panel(page, '.jp-zengine-tool[data-tool="Edit"]').last
    assert "+RATE = 2" in card.locator(".jp-zengine-diff").inner_text()
    assert pipeline.read_text() == ORIGINAL
    _shot(page, "1-approval")
    prompt.locator(".jp-zengine-allow").click()
    prompt.locator(".jp-zengine-approval-outcome").wait_for()
    _wait_turn_over(page)
    assert pipeline.read_text() == "RATE = 2\nprint('rate', RATE)\n"
    assert pipeline.stat().st_uid == account.pw_uid
    _panel(page, ".jp-zengine-item-assistant >> text=RATE is 2 now.").wait_for()

    rewind(_panel(page, ".jp-zengine-item-user").last, "code")
    _panel(page, ".jp-zengine-item-rewind .jp-zengine-rewind-result").last.wait_for()
    assert pipeline.read_text() == ORIGINAL
    assert _last_user(page) == "Set RATE to 2"  # a code rewind keeps the conversation
    _shot(page, "2-rewound-code")


def test_agent_cell_approved_in_its_widget(
    page: Any, project: Path, provider: ProviderServer
) -> None:
    pipeline = project / "pipeline.py"
    users_before = _panel(page, ".jp-zengine-item-user").count()
    _edit_turn(provider, "RATE = 1", "RATE = 3", "RATE is 3.")
    cell = _run_cell(page, "%%agent\nSet RATE to 3")
    widget = cell.locator(".jp-zengine-widget-turn")
    widget.locator(".jp-zengine-approval .jp-zengine-allow").wait_for()
    assert _panel(page, ".jp-zengine-item-user").count() == users_before + 1  # live in the panel
    widget.locator(".jp-zengine-approval .jp-zengine-allow").last.click()
    prompt = _panel(page, ".jp-zengine-approval").last
    prompt.locator(".jp-zengine-approval-outcome").wait_for()  # the panel follows the widget
    _wait_turn_over(page)
    assert pipeline.read_text().startswith("RATE = 3")
    _shot(page, "3-agent-cell")


def test_conversation_rewind_and_the_data_is_in_the_kernel_users_home(
    page: Any, account: pwd.struct_passwd, project: Path
) -> None:
    users = _panel(page, ".jp-zengine-item-user")
    count = users.count()
    assert _last_user(page) == "Set RATE to 3"
    rewind(users.last, "conversation")
    page.wait_for_function(
        f"document.querySelectorAll('{PANEL} .jp-zengine-item-user').length === {count - 1}"
    )
    assert _last_user(page) == "Set RATE to 2"
    assert (project / "pipeline.py").read_text().startswith("RATE = 3")  # files stay
    _shot(page, "4-rewound-conversation")

    data = Path(account.pw_dir) / ".local" / "share" / "zengine"
    logs = [p for p in data.rglob("*") if p.is_file()]
    assert logs, f"nothing in {data}"
    assert {p.stat().st_uid for p in logs} == {account.pw_uid}
    assert any("Set RATE to 2" in p.read_text(errors="replace") for p in logs)


def test_a_kernel_restart_relaunches_it_as_the_user_and_the_panel_gets_the_chat_back(
    page: Any, account: pwd.struct_passwd, project: Path
) -> None:
    connections = int(page.locator(PANEL).get_attribute("data-connections"))
    session = page.locator(PANEL).get_attribute("data-session-id")
    restart = 'jp-button[data-command="notebook:restart-kernel"]'
    page.locator(f".jp-NotebookPanel:not(.lm-mod-hidden) {restart}").click()
    page.locator(".jp-Dialog .jp-mod-accept").click()
    page.wait_for_selector(f'{PANEL}[data-connections="{connections + 1}"][data-subscribed="true"]')
    page.wait_for_selector(f'{PANEL}[data-session-id="{session}"]')
    texts = _panel(page, ".jp-zengine-item-user .jp-zengine-body").all_inner_texts()
    assert texts == ["Set RATE to 2"]  # read back from the kernel user's home
    cell = _run_cell(page, _WHO)
    output = cell.locator(".jp-OutputArea-output", has_text="who")
    output.wait_for()
    assert output.inner_text().split()[1:3] == [str(account.pw_uid), str(project)]
    _shot(page, "5-after-restart")
