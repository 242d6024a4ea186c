"""``%load_ext`` imports ``zengine_jupyter.config``: that must not pull in pydantic models."""

from __future__ import annotations

import json
import subprocess
import sys


def test_importing_config_loads_no_settings_machinery() -> None:
    code = (
        "import json, sys; import zengine_jupyter.config as c; c.data_dir(); "
        "print(json.dumps(sorted(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    modules = set(json.loads(done.stdout))
    assert "pydantic" not in modules
    assert "tomlkit" not in modules
    assert not any(m.startswith("zengine_jupyter.config._schema") for m in modules)
    # and the lazy names still resolve
    code = "import zengine_jupyter.config as c; print(c.Settings.__name__)"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "Settings"
