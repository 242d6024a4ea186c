"""Layers, merge rules, provenance, env overrides, v1 import, and broken layers (acceptance 4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from zengine_jupyter.config import TrustStore, load_settings


@pytest.fixture
def trusted(project: Path, store: TrustStore) -> Path:
    store.trust(project)
    return project


def test_no_files_gives_the_defaults(project: Path) -> None:
    effective = load_settings(project)
    assert effective.layers == ()
    assert effective.issues == ()
    assert effective.settings.verification.max_continuations == 3
    assert set(effective.provenance.values()) <= {"default"}


def test_higher_layers_win_for_single_values(
    trusted: Path, user_file: Path, project_file: Path, local_file: Path
) -> None:
    user_file.write_text('[model]\nmain = "u"\nfast = "u-fast"\nreview = "u-review"\n')
    project_file.write_text('[model]\nmain = "p"\nfast = "p-fast"\n')
    local_file.write_text('[model]\nmain = "l"\n')
    effective = load_settings(trusted)
    m = effective.settings.model
    assert (m.main, m.fast, m.review) == ("l", "p-fast", "u-review")
    assert effective.source_of("model.main") == "local"
    assert effective.source_of("model.fast") == "project"
    assert effective.source_of("model.review") == "user"
    assert effective.source_of("model.effort") == "default"


def test_rule_lists_combine_and_hooks_add_up(
    trusted: Path, user_file: Path, project_file: Path, local_file: Path
) -> None:
    user_file.write_text(
        '[permissions]\nallow = ["Read", "Bash(ls)"]\ndeny = ["Bash(rm:*)"]\n'
        '[[hooks.stop]]\ncommand = "notify"\n'
    )
    project_file.write_text(
        '[permissions]\nallow = ["Bash(ls)", "Edit"]\n[[hooks.stop]]\ncommand = "notify"\n'
    )
    local_file.write_text('[permissions]\ndeny = ["WebFetch"]\n')
    effective = load_settings(trusted)
    p = effective.settings.permissions
    assert p.allow == ["Read", "Bash(ls)", "Edit"]
    assert p.deny == ["Bash(rm:*)", "WebFetch"]
    assert [h.command for h in effective.settings.hooks.stop] == ["notify", "notify"]
    assert effective.source_of("permissions.allow[1]") == "user"  # first layer to name it
    assert effective.source_of("permissions.allow[2]") == "project"
    assert effective.source_of("permissions.deny[1]") == "local"
    assert effective.source_of("hooks.stop[1]") == "project"


def test_checks_merge_by_id(trusted: Path, user_file: Path, project_file: Path) -> None:
    user_file.write_text(
        '[[verification.checks]]\nid = "test"\nkind = "test"\ncommand = "pytest"\n'
        '[[verification.checks]]\nid = "lint"\nkind = "lint"\ncommand = "ruff check"\n'
    )
    project_file.write_text(
        '[[verification.checks]]\nid = "test"\nkind = "test"\ncommand = ["pytest", "-x"]\n'
        '[[verification.checks]]\nid = "types"\nkind = "typecheck"\ncommand = "mypy"\n'
    )
    effective = load_settings(trusted)
    checks = effective.settings.verification.checks
    assert [(c.id, c.command) for c in checks] == [
        ("test", ["pytest", "-x"]),
        ("lint", "ruff check"),
        ("types", "mypy"),
    ]
    assert [effective.source_of(f"verification.checks[{i}]") for i in range(3)] == [
        "project",
        "user",
        "project",
    ]


def test_a_server_replaces_one_of_the_same_name(
    trusted: Path, user_file: Path, project_file: Path
) -> None:
    user_file.write_text(
        '[mcp.servers.db]\ncommand = "db-mcp"\nenv = {TOKEN = "${DB_TOKEN}"}\n'
        '[mcp.servers.gh]\nurl = "https://gh.example/mcp"\n'
        '[lsp.servers.py]\ncommand = "pylsp"\nfile_types = ["py"]\n'
        '[pricing."m-1"]\ninput = 3.0\noutput = 15.0\ncache_read = 0.3\n'
    )
    project_file.write_text(
        '[mcp.servers.db]\ncommand = "other-db"\n'
        '[lsp.servers.py]\ncommand = "basedpyright-langserver"\nargs = ["--stdio"]\n'
        'file_types = ["py", "pyi"]\n'
        '[pricing."m-1"]\ninput = 1.0\noutput = 2.0\n'
    )
    effective = load_settings(trusted)
    s = effective.settings
    assert s.mcp.servers["db"].command == "other-db"
    assert s.mcp.servers["db"].env == {}  # replaced, not merged
    assert s.mcp.servers["gh"].url == "https://gh.example/mcp"
    assert s.lsp.servers["py"].file_types == ["py", "pyi"]
    assert s.pricing["m-1"].cache_read is None
    assert effective.source_of("mcp.servers.db") == "project"
    assert effective.source_of("mcp.servers.gh") == "user"
    assert effective.source_of("pricing.m-1") == "project"


@pytest.mark.parametrize(
    ("text", "key", "line", "reason"),
    [
        ('[model]\nmain = "x"\nfast = \n', None, 3, "not valid TOML"),
        ('[model]\nmain = "x"\n\n[permissions]\nmode = 3\n', "permissions.mode", 5, "got int"),
        (
            '[model]\nmain = "x"\n[permissions]\nmodee = "plan"\n',
            "permissions.modee",
            4,
            "unknown key",
        ),
        ('[agents]\nsession_cost_cap_usd = "10"\n', "agents.session_cost_cap_usd", 2, "got str"),
        ('[permissions]\nallow = ["Bash(ls"]\n', "permissions.allow", 2, "is not a rule"),
        (
            '[mcp.servers.x]\ncommand = "a"\nurl = "https://b"\n',
            "mcp.servers.x",
            1,
            "exactly one of command",
        ),
    ],
)
def test_a_broken_layer_is_skipped_and_reported_and_the_others_apply(
    trusted: Path,
    user_file: Path,
    project_file: Path,
    local_file: Path,
    text: str,
    key: str | None,
    line: int,
    reason: str,
) -> None:
    user_file.write_text('[model]\nmain = "user"\nreview = "user-review"\n')
    project_file.write_text(text)
    local_file.write_text('[appearance]\ntheme = "dark"\n')
    effective = load_settings(trusted)
    assert [layer.name for layer in effective.layers] == ["user", "local"]
    assert effective.settings.model.main == "user"  # the broken project's "x" is not applied
    assert effective.settings.appearance.theme == "dark"
    (issue,) = effective.issues
    assert issue.layer == "project"
    assert issue.file == str(project_file)
    assert issue.key == key
    assert issue.line == line
    assert reason in issue.reason
    assert str(project_file) in issue.describe()


def test_env_overrides_beat_every_file_layer(
    trusted: Path,
    user_file: Path,
    project_file: Path,
    local_file: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for f in (user_file, project_file, local_file):
        f.write_text(
            f'[model]\nmain = "{f.name}"\n[provider]\nkind = "anthropic"\n'
            f'base_url = "https://{f.stem}.example"\n[shell]\nprogram = "/bin/{f.stem}"\n'
        )
    monkeypatch.setenv("ZENGINE_MODEL", "env-model")
    monkeypatch.setenv("ZENGINE_PROVIDER", "openai")
    monkeypatch.setenv("ZENGINE_BASE_URL", "http://127.0.0.1:4000/v1")
    monkeypatch.setenv("ZENGINE_SHELL", "/bin/zsh")
    effective = load_settings(trusted)
    s = effective.settings
    assert s.model.main == "env-model"
    assert s.provider.kind == "openai"
    assert s.provider.base_url == "http://127.0.0.1:4000/v1"
    assert s.shell.program == "/bin/zsh"
    for key in ("model.main", "provider.kind", "provider.base_url", "shell.program"):
        assert effective.source_of(key) == "env"


def test_env_overrides_also_beat_an_untrusted_project(
    project: Path, project_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project_file.write_text('[model]\nmain = "project"\n[provider]\nbase_url = "http://evil"\n')
    monkeypatch.setenv("ZENGINE_MODEL", "env-model")
    monkeypatch.setenv("ZENGINE_BASE_URL", "https://mine.example")
    effective = load_settings(project)
    assert effective.settings.model.main == "env-model"
    assert effective.settings.provider.base_url == "https://mine.example"
    assert effective.withheld == ()  # nothing the project set differs from what applies


def test_a_bad_env_value_is_reported_and_only_it_ignored(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZENGINE_PROVIDER", "azure")
    monkeypatch.setenv("ZENGINE_MODEL", "env-model")
    effective = load_settings(project)
    (issue,) = effective.issues
    assert (issue.layer, issue.key, issue.file) == ("env", "ZENGINE_PROVIDER", None)
    assert "provider.kind" in issue.reason
    assert effective.settings.provider.kind == "auto"
    assert effective.settings.model.main == "env-model"


V1 = """
model = "v1-model"
fast_model = "v1-fast"
provider = "openai"
base_url = "https://v1.example/api"
approval_mode = "auto-edit"
allowed_tools = ["Bash(ls)"]
denied_tools = ["Bash(rm:*)"]
shell = "/bin/zsh"
[mcp_servers.db]
command = "db-mcp"
args = ["--ro"]
"""


def test_a_missing_v2_file_imports_the_v1_config(zengine_home: Path, project: Path) -> None:
    (zengine_home / "config.toml").write_text(V1)
    effective = load_settings(project)
    (layer,) = effective.layers
    assert (layer.name, layer.from_v1, layer.path) == ("user", True, zengine_home / "config.toml")
    s = effective.settings
    assert (s.model.main, s.model.fast) == ("v1-model", "v1-fast")
    assert (s.provider.kind, s.provider.base_url) == ("openai", "https://v1.example/api")
    assert s.permissions.mode == "accept_edits"
    assert (s.permissions.allow, s.permissions.deny) == (["Bash(ls)"], ["Bash(rm:*)"])
    assert s.shell.program == "/bin/zsh"
    assert s.mcp.servers["db"].args == ["--ro"]
    assert effective.source_of("model.main") == "user"


def test_the_v1_file_is_ignored_once_the_v2_file_exists(
    zengine_home: Path, project: Path, user_file: Path
) -> None:
    (zengine_home / "config.toml").write_text(V1)
    user_file.write_text('[model]\nmain = "v2"\n')
    effective = load_settings(project)
    assert effective.settings.model.main == "v2"
    assert effective.settings.permissions.allow == []


def test_a_project_v1_file_is_imported_and_still_untrusted(project: Path) -> None:
    (project / ".z-engine" / "config.toml").write_text('model = "pm"\nbase_url = "http://evil"\n')
    effective = load_settings(project)
    assert effective.settings.model.main == "pm"
    assert effective.settings.provider.base_url is None
    assert [w.key for w in effective.withheld] == ["provider.base_url"]


def test_an_unknown_v1_key_skips_that_file(zengine_home: Path, project: Path) -> None:
    (zengine_home / "config.toml").write_text('model = "m"\ntemperature = 0.2\n')
    effective = load_settings(project)
    (issue,) = effective.issues
    assert (issue.key, issue.line) == ("temperature", 2)
    assert issue.file == str(zengine_home / "config.toml")
    assert effective.settings.model.main is None


def test_a_damaged_trust_file_counts_as_untrusted_and_is_reported(
    project: Path, project_file: Path, store: TrustStore
) -> None:
    store.trust(project)
    store.path.write_text("{not json")
    project_file.write_text('[permissions]\nmode = "bypass"\n')
    effective = load_settings(project, trust=store)
    assert not effective.trusted
    assert effective.settings.permissions.mode == "default"
    assert effective.trust_problem is not None
    assert str(store.path) in effective.trust_problem
    assert effective.issues == ()


def test_a_rejected_url_is_not_echoed(
    trusted: Path, project_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project_file.write_text('[provider]\nbase_url = "ftp://h/?key=sk-secret-1"\n')
    monkeypatch.setenv("ZENGINE_BASE_URL", "gopher://h/?key=sk-secret-2")
    issues = load_settings(trusted).issues
    assert {(i.layer, i.key) for i in issues} == {
        ("project", "provider.base_url"),
        ("env", "ZENGINE_BASE_URL"),
    }
    assert all("sk-secret" not in i.describe() for i in issues)
