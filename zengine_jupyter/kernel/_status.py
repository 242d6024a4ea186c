"""The status line ``%load_ext zengine`` shows: version, project root, data folder."""

from __future__ import annotations

import html
import os
from dataclasses import dataclass
from pathlib import Path

from zengine_jupyter._version import __version__
from zengine_jupyter.config import data_dir, find_project_root, notebook_path

__all__ = ["KernelStatus", "current_status"]


@dataclass(frozen=True)
class KernelStatus:
    version: str
    project_root: Path
    data_dir: Path
    notebook: Path | None

    def as_text(self) -> str:
        serving = f" · notebook {self.notebook.name}" if self.notebook else ""
        return (
            f"zengine {self.version} · project {self.project_root}{serving} · data {self.data_dir}"
        )

    def as_html(self) -> str:
        def cell(label: str, value: str) -> str:
            return f"<b>{label}</b> <code>{html.escape(value)}</code>"

        parts = [f"<b>zengine</b> {html.escape(self.version)}"]
        parts.append(cell("project", str(self.project_root)))
        if self.notebook:
            parts.append(cell("notebook", self.notebook.name))
        parts.append(cell("data", str(self.data_dir)))
        return '<div class="zengine-status">' + " · ".join(parts) + "</div>"

    def mimebundle(self) -> dict[str, str]:
        return {"text/plain": self.as_text(), "text/html": self.as_html()}


def current_status() -> KernelStatus:
    """Status of this kernel: the notebook it serves (if known) decides the project root.

    A remote kernel (a gateway or provisioner that forwards ``JPY_SESSION_NAME``) gets the
    server's path, whose folder is not on the kernel's machine, or not the kernel user's to
    look into: then the kernel's working directory decides, as with no notebook at all."""
    notebook = notebook_path()
    here = notebook is not None and os.path.isdir(notebook.parent)  # noqa: PTH112 (never raises)
    start = notebook.parent if notebook and here else Path.cwd()
    return KernelStatus(
        version=__version__,
        project_root=find_project_root(start),
        data_dir=data_dir(),
        notebook=notebook,
    )
