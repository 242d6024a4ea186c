"""The schema: strict types, unknown keys, rules, env references, and the trust classification."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from zengine_jupyter.config import (
    APPLIED,
    CAPPED,
    WITHHELD,
    CommandGrants,
    PermissionRule,
    Settings,
    child_mode,
    expand_env_refs,
    may_run_automatic_checks,
    trusted_grants,
)
from zengine_jupyter.config._merge import dotted, flatten
from zengine_jupyter.protocol import ConfigError


def _leaf_paths() -> set[str]:
    example = Settings.model_validate(
        {
            "mcp": {"servers": {"s": {"command": "x"}}},
            "lsp": {"servers": {"s": {"command": "x", "file_types": ["py"]}}},
            "pricing": {"m": {"input": 1.0, "output": 1.0}},
        }
    )
    return {key.split("[")[0] for key in flatten(example.model_dump())}


def test_every_key_is_withheld_capped_or_applied_exactly_once() -> None:
    tables = [dotted(p) for p in (*WITHHELD, *CAPPED, *APPLIED)]
    for key in _leaf_paths():
        owners = [t for t in tables if key == t or key.startswith(t + ".")]
        assert len(owners) == 1, f"{key} is classified by {owners}: decide in _restrict.py"


@pytest.mark.parametrize(
    ("data", "loc"),
    [
        ({"model": {"main": 1}}, ("model", "main")),
        ({"model": {"effort": "extreme"}}, ("model", "effort")),
        ({"permissions": {"allow": "Read"}}, ("permissions", "allow")),
        ({"shell": {"sandbox": {"enabled": "yes"}}}, ("shell", "sandbox", "enabled")),
        ({"verification": {"max_continuations": 3.5}}, ("verification", "max_continuations")),
        ({"verification": {"mode": "paranoid"}}, ("verification", "mode")),
        ({"provider": {"base_url": "ftp://x"}}, ("provider", "base_url")),
        ({"pricing": {"m": {"input": 1.0}}}, ("pricing", "m", "output")),
        ({"hooks": {"stop": [{"command": []}]}}, ("hooks", "stop", 0, "command")),
        (
            {"lsp": {"servers": {"x": {"command": "x", "file_types": []}}}},
            ("lsp", "servers", "x", "file_types"),
        ),
        ({"nonsense": {}}, ("nonsense",)),
    ],
)
def test_wrong_types_and_values_are_reported_with_their_key(
    data: dict[str, object], loc: tuple[str | int, ...]
) -> None:
    with pytest.raises(ValidationError) as caught:
        Settings.model_validate(data)
    assert caught.value.errors()[0]["loc"] == loc


def test_duplicate_check_ids_in_one_file_are_an_error() -> None:
    check = {"id": "t", "kind": "test", "command": "pytest"}
    with pytest.raises(ValidationError, match="appears twice"):
        Settings.model_validate({"verification": {"checks": [check, check]}})


def test_the_pricing_shape_the_providers_code_against() -> None:
    s = Settings.model_validate(
        {"pricing": {"gpt-4.1": {"input": 2, "output": 8.0, "cache_read": 0.5, "cache_write": 2.5}}}
    )
    price = s.pricing["gpt-4.1"]
    assert (price.input, price.output, price.cache_read, price.cache_write) == (2, 8, 0.5, 2.5)


@pytest.mark.parametrize(
    ("rule", "tool", "arg", "expected"),
    [
        ("Bash", "Bash", "anything", True),
        ("Bash(npm run test:*)", "Bash", "npm run test -- -k x", True),
        ("Bash(npm run test:*)", "Bash", "npm run build", False),
        ("Bash(ls)", "Bash", "ls -la", False),
        ("Read(src/**)", "Read", "src/a/b.py", True),
        ("Edit(*.py)", "Read", "a.py", False),
        ("mcp__github", "mcp__github__create_issue", None, True),
        ("mcp__github", "mcp__github2__x", None, False),
        ("mcp__github__create_issue", "mcp__github__list", None, False),
        ("Read(/etc/*)", "Read", None, False),
    ],
)
def test_rules_match(rule: str, tool: str, arg: str | None, expected: bool) -> None:
    assert PermissionRule.parse(rule).matches(tool, arg) is expected


@pytest.mark.parametrize("text", ["", "Bash(", "Bash()", "(ls)", "9tool", "Bash(ls) extra"])
def test_malformed_rules_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match=r"rule|specifier"):
        PermissionRule.parse(text)


def test_env_references_in_headers() -> None:
    env = {"GH_TOKEN": "secret-value"}
    assert expand_env_refs("Bearer ${GH_TOKEN}", env, where="h") == "Bearer secret-value"
    assert expand_env_refs("plain", env, where="h") == "plain"
    with pytest.raises(ConfigError, match=r"mcp\.servers\.gh\.headers\.Authorization") as caught:
        expand_env_refs("${MISSING}", env, where="mcp.servers.gh.headers.Authorization")
    assert "secret" not in str(caught.value)


@pytest.mark.parametrize(
    ("parent", "requested", "project_defined", "trusted", "expected"),
    [
        ("default", "bypass", True, False, "default"),
        ("default", "accept_edits", True, False, "default"),
        ("accept_edits", "plan", True, False, "plan"),  # stricter is fine
        ("plan", "default", True, False, "plan"),
        ("bypass", "accept_edits", True, False, "accept_edits"),
        ("default", None, True, False, "default"),
        ("default", "bypass", True, True, "bypass"),  # trusted project
        ("default", "bypass", False, False, "bypass"),  # the user's own agent
    ],
)
def test_a_project_agent_never_runs_looser_than_its_parent(
    parent: str, requested: str | None, project_defined: bool, trusted: bool, expected: str
) -> None:
    got = child_mode(
        parent,  # type: ignore[arg-type]
        requested,  # type: ignore[arg-type]
        project_defined=project_defined,
        trusted=trusted,
    )
    assert got == expected


def test_an_untrusted_projects_command_gets_nothing() -> None:
    tools = ["Bash(git push:*)", "Edit"]
    assert trusted_grants(tools, project_defined=True, trusted=False) == CommandGrants((), False)
    assert trusted_grants(tools, project_defined=True, trusted=True) == CommandGrants(
        tuple(tools), True
    )
    assert trusted_grants(tools, project_defined=False, trusted=False).allowed_tools == tuple(tools)


@pytest.mark.parametrize(
    ("mode", "trusted", "expected"),
    [
        ("auto", False, False),
        ("strict", False, False),
        ("auto", True, True),
        ("strict", True, True),
        ("report", True, False),
        ("off", True, False),
    ],
)
def test_automatic_checks_run_only_when_trusted(mode: str, trusted: bool, expected: bool) -> None:
    assert may_run_automatic_checks(mode, trusted=trusted) is expected


@pytest.mark.parametrize(
    "name", ["/home/u/.ssh/id_rsa", "~/.aws/credentials", "../x.md", "a/../../b", "C:/x"]
)
def test_instruction_files_stay_inside_the_project(name: str) -> None:
    with pytest.raises(ValidationError, match="inside the project"):
        Settings.model_validate({"context": {"instruction_files": [name]}})
    ok = Settings.model_validate({"context": {"instruction_files": ["docs/AGENTS.md"]}})
    assert ok.context.instruction_files == ["docs/AGENTS.md"]


def test_mcp_headers_and_env_resolve_references() -> None:
    s = Settings.model_validate(
        {
            "mcp": {
                "servers": {
                    "gh": {
                        "url": "https://gh.example/mcp",
                        "headers": {"Authorization": "Bearer ${GH_TOKEN}", "X-Plain": "v"},
                    },
                    "db": {"command": "db-mcp", "env": {"PGPASSWORD": "${PG}"}},
                }
            }
        }
    )
    env = {"GH_TOKEN": "t-1", "PG": "p-2"}
    gh, db = s.mcp.servers["gh"], s.mcp.servers["db"]
    assert gh.resolved_headers("gh", env) == {"Authorization": "Bearer t-1", "X-Plain": "v"}
    assert db.resolved_env("db", env) == {"PGPASSWORD": "p-2"}
    with pytest.raises(ConfigError, match=r"mcp\.servers\.db\.env\.PGPASSWORD"):
        db.resolved_env("db", {})
