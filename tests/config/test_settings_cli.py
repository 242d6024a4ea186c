"""``zengine settings`` and ``zengine trust``, run as a user would run them."""

from __future__ import annotations

import json
from pathlib import Path

from zengine_jupyter.config import TrustStore, render_reference
from zengine_jupyter.config._reference import BEGIN, END
from zengine_jupyter.testing import run_cli_sync

DOCS = Path(__file__).resolve().parents[2] / "docs" / "settings.md"


def test_settings_json_names_layers_withheld_and_issues(
    project: Path, project_file: Path, user_file: Path, local_file: Path
) -> None:
    user_file.write_text(
        '[model]\nmain = "u"\n[mcp.servers.gh]\nurl = "https://gh.example"\n'
        'headers = {Authorization = "Bearer tok-123", X-Ref = "${GH}"}\n'
    )
    project_file.write_text('[model]\nmain = "p"\n[permissions]\nallow = ["Bash(*)"]\n')
    local_file.write_text("[model\n")
    done = run_cli_sync("settings", "--json", cwd=project)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["project"] == str(project.resolve())
    assert out["trusted"] is False
    assert [layer["name"] for layer in out["layers"]] == ["user", "project"]
    assert out["values"]["model.main"] == {"value": "p", "layer": "project"}
    assert out["withheld"] == [
        {"key": "permissions.allow", "layer": "project", "detail": "Bash(*)"}
    ]
    (issue,) = out["issues"]
    assert (issue["layer"], issue["line"]) == ("local", 1)
    headers = out["values"]["mcp.servers.gh"]["value"]["headers"]
    assert headers == {"Authorization": "***", "X-Ref": "${GH}"}
    assert "tok-123" not in done.stdout


def test_trust_list_revoke_and_settings_layers(project: Path, project_file: Path) -> None:
    project_file.write_text('[permissions]\nmode = "plan"\n')
    done = run_cli_sync("settings", "--layers", cwd=project)
    assert "withheld until trusted: permissions.mode = plan (from project)" in done.stdout
    assert 'permissions.mode = "default"  # default' in done.stdout

    done = run_cli_sync("trust", cwd=project / ".z-engine")  # the project root, found from inside
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"trusted: {project.resolve()}"
    assert TrustStore().is_trusted(project)
    assert str(project.resolve()) in run_cli_sync("trust", "--list", cwd=project).stdout
    done = run_cli_sync("settings", "--layers", cwd=project)
    assert 'permissions.mode = "plan"  # project' in done.stdout

    done = run_cli_sync("trust", "--revoke", str(project), cwd=project)
    assert done.returncode == 0
    assert not TrustStore().is_trusted(project)
    again = run_cli_sync("trust", "--revoke", str(project), cwd=project)
    assert again.returncode == 1
    assert "was not trusted" in again.stderr


def test_the_committed_reference_page_is_current() -> None:
    text = DOCS.read_text(encoding="utf-8")
    block = text[text.index(BEGIN) : text.index(END) + len(END)] + "\n"
    assert block == render_reference(), "run scripts/settings-doc to regenerate docs/settings.md"
