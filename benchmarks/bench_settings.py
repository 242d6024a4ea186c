"""Loading a project's effective settings against parsing the same TOML files alone.

The project has a user, project and local file (about 60 keys, an MCP server, checks and hooks)
and is untrusted, so the measured path includes the trust check and ``restrict_to_user_level``.
The baseline is ``tomllib`` reading the three files: the floor any loader pays.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import tomllib
from pathlib import Path

from benchmarks._harness import Benchmark

_USER = """
[model]
main = "claude-sonnet-4-5"
fast = "claude-haiku-4-5"
fallbacks = ["gpt-4.1"]
[provider]
kind = "anthropic"
[permissions]
allow = ["Read", "Bash(ls)", "Bash(git status)", "Bash(npm run test:*)"]
deny = ["Bash(rm -rf:*)"]
[[hooks.stop]]
command = ["notify-send", "done"]
[mcp.servers.github]
url = "https://api.example/mcp"
headers = { Authorization = "Bearer ${GH_TOKEN}" }
[pricing."claude-sonnet-4-5"]
input = 3.0
output = 15.0
cache_read = 0.3
cache_write = 3.75
"""
_PROJECT = """
[model]
effort = "high"
[permissions]
mode = "accept_edits"
allow = ["Edit(src/**)", "Bash(make:*)"]
ask = ["Bash(git push:*)"]
[[verification.checks]]
id = "test"
kind = "test"
command = ["pytest", "-q"]
[[verification.checks]]
id = "types"
kind = "typecheck"
command = "mypy src"
[verification]
mode = "auto"
[[hooks.pre_tool_use]]
command = "./scripts/guard"
matcher = "Bash"
[lsp.servers.py]
command = "basedpyright-langserver"
args = ["--stdio"]
file_types = ["py", "pyi"]
[shell.sandbox]
enabled = true
"""
_LOCAL = """
[appearance]
theme = "dark"
[context]
compact_threshold = 0.8
"""


def _setup() -> tuple[Path, list[Path]]:
    root = Path(tempfile.mkdtemp(prefix="zengine-bench-settings-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    home, project = root / "home", root / "project"
    (project / ".z-engine").mkdir(parents=True)
    (project / ".git").mkdir()
    home.mkdir()
    files = [
        home / "settings.toml",
        project / ".z-engine" / "settings.toml",
        project / ".z-engine" / "settings.local.toml",
    ]
    for path, text in zip(files, (_USER, _PROJECT, _LOCAL), strict=True):
        path.write_text(text)
    os.environ["ZENGINE_HOME"] = str(home)
    return project, files


def benchmarks() -> list[Benchmark]:
    from zengine_jupyter.config import load_settings

    project, files = _setup()

    def ours() -> None:
        load_settings(project)

    def baseline() -> None:
        for path in files:
            tomllib.loads(path.read_text())

    return [
        Benchmark(
            "load_settings (3 layers, untrusted) vs tomllib of the 3 files",
            ours=ours,
            baseline=baseline,
            repeat=30,
        )
    ]
