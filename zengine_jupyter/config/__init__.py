"""Settings, trust and the folders zengine uses."""

from zengine_jupyter.config._paths import (
    HOME_ENV,
    data_dir,
    find_project_root,
    notebook_path,
    user_config_dir,
)

__all__ = ["HOME_ENV", "data_dir", "find_project_root", "notebook_path", "user_config_dir"]
