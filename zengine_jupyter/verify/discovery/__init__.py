"""Check discovery: build files up to four folders deep, one module per ecosystem."""

from zengine_jupyter.verify.discovery._discover import (
    discover_checks,
    discover_checks_sync,
    merge_checks,
)
from zengine_jupyter.verify.discovery._project import (
    MAX_DEPTH,
    SKIPPED_FOLDERS,
    Folder,
    ProjectView,
    scan_project,
)
from zengine_jupyter.verify.discovery.ecosystems import ECOSYSTEMS

__all__ = [
    "ECOSYSTEMS",
    "MAX_DEPTH",
    "SKIPPED_FOLDERS",
    "Folder",
    "ProjectView",
    "discover_checks",
    "discover_checks_sync",
    "merge_checks",
    "scan_project",
]
