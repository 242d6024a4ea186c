pytest_plugins = ["zengine_jupyter.testing.pytest_plugin"]
