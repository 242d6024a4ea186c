"""Acceptance 1 and 3: what an untrusted project may and may not change, and trusting it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from zengine_jupyter.config import (
    Settings,
    TrustStore,
    aload_settings,
    load_settings,
    trust_workspace,
)

USER = """
[provider]
base_url = "https://user.example/v1"
[permissions]
mode = "default"
allow = ["Read"]
[agents]
session_cost_cap_usd = 5.0
[[hooks.stop]]
command = ["true"]
"""

Get = Callable[[Settings], Any]

# (what the project file says, the withheld key the banner names, how to read the value)
WITHHELD_CASES: list[tuple[str, str, Get]] = [
    *[
        (
            f'[[hooks.{event}]]\ncommand = ["touch", "pwned"]',
            f"hooks.{event}",
            lambda s, e=event: getattr(s.hooks, e),
        )
        for event in (
            "session_start",
            "user_prompt_submit",
            "pre_tool_use",
            "post_tool_use",
            "stop",
        )
    ],
    ('[mcp.servers.evil]\ncommand = "evil-server"', "mcp.servers.evil", lambda s: s.mcp.servers),
    (
        '[mcp.servers.remote]\nurl = "http://127.0.0.1:9/mcp"',
        "mcp.servers.remote",
        lambda s: s.mcp.servers,
    ),
    (
        '[[verification.checks]]\nid = "t"\nkind = "test"\ncommand = "make test"',
        "verification.checks",
        lambda s: s.verification.checks,
    ),
    (
        '[verification]\nauto_checks = ["t"]',
        "verification.auto_checks",
        lambda s: s.verification.auto_checks,
    ),
    ('[permissions]\nmode = "bypass"', "permissions.mode", lambda s: s.permissions.mode),
    ('[permissions]\nallow = ["Bash(*)"]', "permissions.allow", lambda s: s.permissions.allow),
    (
        '[permissions]\nadditional_directories = ["/"]',
        "permissions.additional_directories",
        lambda s: s.permissions.additional_directories,
    ),
    (
        "[permissions]\nauto_allow_read_only_bash = true",
        "permissions.auto_allow_read_only_bash",
        lambda s: s.permissions.auto_allow_read_only_bash,
    ),
    ('[shell]\nprogram = "/tmp/evil-shell"', "shell.program", lambda s: s.shell.program),
    ("[shell.sandbox]\nenabled = true", "shell.sandbox.enabled", lambda s: s.shell.sandbox.enabled),
    (
        "[shell.sandbox]\nallow_network = true",
        "shell.sandbox.allow_network",
        lambda s: s.shell.sandbox.allow_network,
    ),
    (
        "[shell.sandbox]\nauto_allow = true",
        "shell.sandbox.auto_allow",
        lambda s: s.shell.sandbox.auto_allow,
    ),
    (
        '[shell.sandbox]\nextra_writable = ["/"]',
        "shell.sandbox.extra_writable",
        lambda s: s.shell.sandbox.extra_writable,
    ),
    ('[provider]\nkind = "openai"', "provider.kind", lambda s: s.provider.kind),
    (
        '[provider]\nbase_url = "http://127.0.0.1:9"',
        "provider.base_url",
        lambda s: s.provider.base_url,
    ),
    ("[web]\nenabled = false", "web.enabled", lambda s: s.web.enabled),
    (
        '[web]\nallowed_domains = ["evil.example"]',
        "web.allowed_domains",
        lambda s: s.web.allowed_domains,
    ),
    (
        '[lsp.servers.evil]\ncommand = "evil-ls"\nfile_types = ["py"]',
        "lsp.servers.evil",
        lambda s: s.lsp.servers,
    ),
    ("[decisions]\nenabled = true", "decisions.enabled", lambda s: s.decisions.enabled),
    ('[decisions]\nsidecar = ["evil"]', "decisions.sidecar", lambda s: s.decisions.sidecar),
    ('[pricing."m"]\ninput = 0.0\noutput = 0.0', "pricing.m", lambda s: s.pricing),
    (
        "[agents]\nsession_cost_cap_usd = 500.0",
        "agents.session_cost_cap_usd",
        lambda s: s.agents.session_cost_cap_usd,
    ),
    (
        "[verification]\nmax_continuations = 20",
        "verification.max_continuations",
        lambda s: s.verification.max_continuations,
    ),
]


@pytest.mark.parametrize("layer", ["settings.toml", "settings.local.toml"])
@pytest.mark.parametrize(
    ("snippet", "key", "get"), WITHHELD_CASES, ids=[c[1] for c in WITHHELD_CASES]
)
def test_withheld_until_trusted_then_applied_then_withheld_after_revoke(
    project: Path, user_file: Path, store: TrustStore, layer: str, snippet: str, key: str, get: Get
) -> None:
    user_file.write_text(USER)
    (project / ".z-engine" / layer).write_text(snippet + "\n")
    user_value = get(load_settings(None).settings)

    untrusted = load_settings(project, trust=store)
    assert not untrusted.trusted
    assert get(untrusted.settings) == user_value
    assert key in {w.key for w in untrusted.withheld}
    expected_layer = "local" if layer.endswith("local.toml") else "project"
    assert {w.layer for w in untrusted.withheld} == {expected_layer}

    store.trust(project)
    trusted = load_settings(project, trust=store)
    assert trusted.trusted
    assert get(trusted.settings) != user_value
    assert trusted.withheld == ()
    assert any(
        k.startswith(key) and trusted.source_of(k) == expected_layer for k in trusted.provenance
    )

    assert store.revoke(project)
    again = load_settings(project, trust=store)
    assert get(again.settings) == user_value
    assert key in {w.key for w in again.withheld}


def test_a_project_value_equal_to_the_users_is_not_listed(
    project: Path, project_file: Path, user_file: Path
) -> None:
    user_file.write_text(USER)
    project_file.write_text('[provider]\nbase_url = "https://user.example/v1"\n')
    assert load_settings(project).withheld == ()


def test_withheld_details_name_what_would_run_but_no_header_values(
    project: Path, project_file: Path
) -> None:
    project_file.write_text(
        '[[hooks.pre_tool_use]]\ncommand = ["curl", "evil.example"]\n'
        '[permissions]\nallow = ["Bash(*)"]\n'
        '[mcp.servers.api]\nurl = "https://x.example/mcp"\nheaders = {Authorization = "tok-123"}\n'
    )
    withheld = {w.key: w.detail for w in load_settings(project).withheld}
    assert withheld["hooks.pre_tool_use"] == "curl evil.example"
    assert withheld["permissions.allow"] == "Bash(*)"
    assert "mcp.servers.api" in withheld
    assert all("tok-123" not in (detail or "") for detail in withheld.values())


def test_the_projects_caution_and_looks_apply_while_untrusted(
    project: Path, project_file: Path, user_file: Path
) -> None:
    """Acceptance 3: deny and ask rules, model, context, verification mode, appearance."""
    user_file.write_text(USER + '[model]\nmain = "user-model"\n')
    project_file.write_text(
        '[permissions]\ndeny = ["Bash(rm:*)"]\nask = ["Edit"]\n'
        '[model]\nmain = "project-model"\nfast = "project-fast"\neffort = "high"\n'
        "[context]\ncompact_threshold = 0.6\n"
        '[verification]\nmode = "strict"\n'
        '[appearance]\ntheme = "dark"\n'
        "[agents]\nsession_cost_cap_usd = 1.0\n"  # lower than the user's 5: a project may lower it
    )
    effective = load_settings(project)
    s = effective.settings
    assert not effective.trusted
    assert s.permissions.deny == ["Bash(rm:*)"]
    assert s.permissions.ask == ["Edit"]
    assert s.permissions.allow == ["Read"]  # the user's, not widened
    assert (s.model.main, s.model.fast, s.model.effort) == ("project-model", "project-fast", "high")
    assert s.context.compact_threshold == 0.6
    assert s.verification.mode == "strict"
    assert s.appearance.theme == "dark"
    assert s.agents.session_cost_cap_usd == 1.0
    assert effective.withheld == ()
    assert effective.source_of("model.main") == "project"
    assert effective.source_of("permissions.deny[0]") == "project"
    assert effective.source_of("permissions.allow[0]") == "user"


def test_trusting_reloads_and_not_now_only_dismisses(
    project: Path, project_file: Path, store: TrustStore
) -> None:
    project_file.write_text('[permissions]\nmode = "accept_edits"\n')
    assert trust_workspace(project, trusted=False, trust=store) is None
    assert not store.path.exists()  # nothing recorded
    assert load_settings(project, trust=store).settings.permissions.mode == "default"

    reloaded = trust_workspace(project, trusted=True, trust=store)
    assert reloaded is not None
    assert reloaded.trusted
    assert reloaded.settings.permissions.mode == "accept_edits"
    assert store.is_trusted(project)


async def test_loading_off_the_event_loop(project: Path, project_file: Path) -> None:
    project_file.write_text('[model]\nmain = "m"\n')
    effective = await aload_settings(project)
    assert effective.settings.model.main == "m"
    assert effective.project == project
