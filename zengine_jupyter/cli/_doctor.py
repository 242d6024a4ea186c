"""``zengine doctor``: what is installed, where data goes, what is missing and how to add it."""

from __future__ import annotations

import importlib.metadata
import platform

from zengine_jupyter._version import __version__
from zengine_jupyter.config import data_dir
from zengine_jupyter.host import probe_components
from zengine_jupyter.host.sandbox import detect_backend
from zengine_jupyter.protocol import DoctorReport

__all__ = ["KEY_PACKAGES", "collect_report", "render_report"]

KEY_PACKAGES: tuple[str, ...] = (
    "ipykernel",
    "ipywidgets",
    "anywidget",
    "jupyterlab",
    "httpx",
    "pydantic",
    "mcp",
    "nest-asyncio2",
)


def _package_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


async def collect_report() -> DoctorReport:
    """Gather the report; nothing here changes the machine."""
    backend = await detect_backend()
    return DoctorReport(
        zengine_version=__version__,
        python=f"{platform.python_implementation()} {platform.python_version()}",
        packages={name: _package_version(name) for name in KEY_PACKAGES},
        data_dir=str(data_dir()),
        components=await probe_components(),
        sandbox_backend=backend.name if backend.available else None,
        sandbox_notice=backend.notice,
    )


def render_report(report: DoctorReport) -> str:
    """The report as a person reads it in a terminal."""
    lines = [
        f"zengine-jupyter {report.zengine_version} on {report.python}",
        f"data folder: {report.data_dir}",
        "",
        "packages:",
    ]
    width = max(map(len, report.packages))
    lines += [
        f"  {name:<{width}}  {version or 'MISSING (pip install zengine-jupyter)'}"
        for name, version in report.packages.items()
    ]
    lines += ["", "components:"]
    for comp in report.components:
        if comp.available:
            lines.append(f"  ok       {comp.name:<9} {comp.version or ''}  ({comp.path})")
        else:
            lines.append(
                f"  missing  {comp.name:<9} needed for {comp.purpose}; install: {comp.install}"
            )
    lines += ["", "sandbox (used when [shell.sandbox] enabled = true):"]
    if report.sandbox_backend is not None:
        lines.append(f"  ok       {report.sandbox_backend}")
    elif report.sandbox_notice is not None:
        notice = report.sandbox_notice
        lines.append(f"  missing  {notice.reason}; fix: {notice.fix}")
    return "\n".join(lines)
