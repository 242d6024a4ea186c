"""Every package's ``__all__`` is exactly its public names (style: httpx's export test)."""

from __future__ import annotations

import importlib

import pytest

PACKAGES = [
    "zengine_jupyter",
    "zengine_jupyter.protocol",
    "zengine_jupyter.config",
    "zengine_jupyter.host",
    "zengine_jupyter.host.sandbox",
    "zengine_jupyter.llm",
    "zengine_jupyter.llm.anthropic",
    "zengine_jupyter.llm.openai",
    "zengine_jupyter.host.checkpoint",
    "zengine_jupyter.store",
    "zengine_jupyter.engine",
    "zengine_jupyter.integrations.mcp",
    "zengine_jupyter.engine.mcp",
    "zengine_jupyter.engine.verify",
    "zengine_jupyter.verify",
    "zengine_jupyter.verify.discovery",
    "zengine_jupyter.verify.discovery.ecosystems",
    "zengine_jupyter.verify.parse",
    "zengine_jupyter.integrations.jsonrpc",
    "zengine_jupyter.integrations.lsp",
    "zengine_jupyter.cli",
    "zengine_jupyter.engine.tools",
    "zengine_jupyter.engine.lsp",
    "zengine_jupyter.policy",
    "zengine_jupyter.kernel",
    "zengine_jupyter.testing",
]


@pytest.mark.parametrize("name", PACKAGES)
def test_all_lists_every_public_name(name: str) -> None:
    module = importlib.import_module(name)
    exported = set(module.__all__)
    public = {
        attr
        for attr, value in vars(module).items()
        if not attr.startswith("_")
        and callable(value)
        and str(getattr(value, "__module__", "")).startswith("zengine_jupyter")
    }
    assert public <= exported, f"{name} exposes names missing from __all__: {public - exported}"
    if "__dir__" in vars(module):  # lazy exports: what dir() promises is exactly __all__
        assert set(dir(module)) == exported
    missing = {attr for attr in exported if not hasattr(module, attr)}
    assert not missing, f"{name}.__all__ lists names it does not have: {missing}"


def test_version_is_single_sourced() -> None:
    import importlib.metadata

    import zengine_jupyter

    assert zengine_jupyter.__version__ == importlib.metadata.version("zengine-jupyter")


def test_zengine_shim_exposes_the_kernel_hooks() -> None:
    import zengine
    from zengine_jupyter import kernel

    assert zengine.load_ipython_extension is kernel.load_ipython_extension
    assert zengine.unload_ipython_extension is kernel.unload_ipython_extension
