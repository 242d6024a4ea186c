"""Item 2: names are mcp__<server>__<tool>, other characters become _, minus disabled_tools."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zengine_jupyter.integrations.mcp import (
    MAX_NAME_LENGTH,
    McpServerEntry,
    expand_env,
    expand_values,
    qualified_name,
    qualify_tools,
    safe_url,
    sanitize,
    server_prefix,
)
from zengine_jupyter.protocol import TOOL_NAME_PATTERN, ConfigError


@pytest.mark.parametrize(
    ("server", "tool", "expected"),
    [
        ("github", "create_issue", "mcp__github__create_issue"),
        ("my.server", "get-file", "mcp__my_server__get-file"),
        ("db prod", "query/sql", "mcp__db_prod__query_sql"),
        ("ünï", "tööl:1", "mcp___n___t__l_1"),  # each non-ASCII character becomes one _
    ],
)
def test_qualified_names(server: str, tool: str, expected: str) -> None:
    assert qualified_name(server, tool) == expected


def test_sanitize_keeps_letters_digits_underscore_and_hyphen() -> None:
    assert sanitize("Az09_-") == "Az09_-"
    assert sanitize("a.b c/d@e") == "a_b_c_d_e"
    assert server_prefix("my.srv") == "mcp__my_srv__"


@given(st.text(min_size=1, max_size=80), st.text(min_size=1, max_size=120))
def test_every_qualified_name_is_a_valid_tool_name(server: str, tool: str) -> None:
    name = qualified_name(server, tool)
    assert re.fullmatch(TOOL_NAME_PATTERN, name)
    assert len(name) <= MAX_NAME_LENGTH
    assert name.startswith("mcp__")
    assert qualified_name(server, tool) == name  # deterministic


def test_long_names_are_cut_with_a_hash_that_keeps_them_apart() -> None:
    a = qualified_name("server", "x" * 80 + "a")
    b = qualified_name("server", "x" * 80 + "b")
    assert len(a) == len(b) == MAX_NAME_LENGTH
    assert a != b
    assert a.startswith("mcp__server__xxxx")


def test_disabled_tools_are_left_out_by_own_or_sanitised_name() -> None:
    names = qualify_tools("gh", ["create", "delete.repo", "list", "drop"], ["delete_repo", "drop"])
    assert names == {"mcp__gh__create": "create", "mcp__gh__list": "list"}


def test_names_that_sanitise_alike_both_stay() -> None:
    names = qualify_tools("s", ["a.b", "a_b", "a b"])
    assert names == {"mcp__s__a_b": "a.b", "mcp__s__a_b_2": "a_b", "mcp__s__a_b_3": "a b"}


def test_entry_needs_exactly_one_transport() -> None:
    with pytest.raises(ConfigError, match=r"\[mcp\.servers\.x\].*exactly one"):
        McpServerEntry("x")
    with pytest.raises(ConfigError, match="exactly one"):
        McpServerEntry("x", command="a", url="http://h")
    with pytest.raises(ConfigError, match="http"):
        McpServerEntry("x", url="ftp://h")
    entry = McpServerEntry("x", command="srv", args=["a"], disabled_tools=["t"])  # type: ignore[arg-type]
    assert entry.args == ("a",)
    assert entry.disabled_tools == frozenset({"t"})
    assert entry.transport == "stdio"
    assert entry == McpServerEntry("x", command="srv", args=("a",), disabled_tools=frozenset({"t"}))
    assert entry != McpServerEntry("x", command="srv", args=("b",), disabled_tools=frozenset({"t"}))
    unfrozen = McpServerEntry(
        "x",
        command="srv",
        args=("a",),
        disabled_tools={"t"},  # type: ignore[arg-type]  # a plain set: the entry freezes it
    )
    assert hash(entry) == hash(unfrozen)


def test_env_expansion_takes_values_from_the_environment() -> None:
    env = {"TOKEN": "s3cret", "EMPTY": ""}
    assert expand_env("Bearer ${TOKEN}", env, where="w") == "Bearer s3cret"
    assert expand_env("[${EMPTY}]", env, where="w") == "[]"
    assert expand_env("$TOKEN stays", env, where="w") == "$TOKEN stays"
    got = expand_values({"Authorization": "Bearer ${TOKEN}"}, env, where="mcp.servers.gh.headers")
    assert got == {"Authorization": "Bearer s3cret"}


def test_a_missing_variable_names_it_and_where_it_is_used_but_no_value() -> None:
    with pytest.raises(ConfigError) as info:
        expand_values(
            {"Authorization": "Bearer ${GH_TOKEN}", "X": "${TOKEN}"},
            {"TOKEN": "s3cret"},
            where="mcp.servers.gh.headers",
        )
    text = str(info.value)
    assert "GH_TOKEN" in text
    assert "mcp.servers.gh.headers.Authorization" in text
    assert "s3cret" not in text
    assert info.value.hint is not None


def test_safe_url_drops_credentials_query_and_fragment() -> None:
    assert safe_url("https://user:pw@host:8443/mcp?token=abc#x") == "https://host:8443/mcp"
    assert McpServerEntry("r", url="http://h/mcp?k=1").display_target() == "http://h/mcp"


def test_entry_from_a_settings_table() -> None:
    table = {
        "url": "https://mcp.example/mcp",
        "headers": {"Authorization": "Bearer ${GH_TOKEN}"},
        "disabled_tools": ["delete_repo"],
        "enabled": True,
        "command": None,
        "args": [],
        "env": {},
        "cwd": None,
    }
    entry = McpServerEntry.from_mapping("github", table)
    assert entry == McpServerEntry(
        "github",
        url="https://mcp.example/mcp",
        headers={"Authorization": "Bearer ${GH_TOKEN}"},
        disabled_tools=frozenset({"delete_repo"}),
    )
    assert entry.transport == "http"
    with pytest.raises(ConfigError, match=r"\[mcp\.servers\.x\]: unknown key 'comand'"):
        McpServerEntry.from_mapping("x", {"comand": "srv"})
