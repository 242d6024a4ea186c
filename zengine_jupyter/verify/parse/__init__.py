"""Test counts from a check's output: one parser per test runner."""

from zengine_jupyter.verify.parse._js import (
    parse_bun,
    parse_jest,
    parse_mocha,
    parse_node,
    parse_vitest,
)
from zengine_jupyter.verify.parse._native import (
    parse_cargo,
    parse_ctest,
    parse_deno,
    parse_go,
    parse_maven,
    parse_rspec,
)
from zengine_jupyter.verify.parse._python import parse_pytest, parse_unittest
from zengine_jupyter.verify.parse._registry import PARSERS, parse_counts, parse_notebooks

__all__ = [
    "PARSERS",
    "parse_bun",
    "parse_cargo",
    "parse_counts",
    "parse_ctest",
    "parse_deno",
    "parse_go",
    "parse_jest",
    "parse_maven",
    "parse_mocha",
    "parse_node",
    "parse_notebooks",
    "parse_pytest",
    "parse_rspec",
    "parse_unittest",
    "parse_vitest",
]
