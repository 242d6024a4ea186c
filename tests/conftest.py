pytest_plugins = ["zengine_jupyter.testing.pytest_plugin"]

# tests/fixtures holds small real projects (with their own test files) that tests copy and run.
collect_ignore = ["fixtures"]
