"""Go: ``go.mod`` modules (go test, go build, go vet, gofmt -l)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zengine_jupyter.verify.discovery._project import ProjectView, make_check

if TYPE_CHECKING:
    from zengine_jupyter.protocol import CheckSpec

__all__ = ["GOFMT", "discover"]

GOFMT = 'out=$(gofmt -l .); [ -z "$out" ] || { echo "not gofmt-formatted:"; echo "$out"; exit 1; }'
"""``gofmt -l`` exits 0 even when it lists files: fail when it lists any."""


def discover(project: ProjectView) -> list[CheckSpec]:
    checks: list[CheckSpec] = []
    for folder in project.folders:
        if not folder.has("go.mod"):
            continue
        checks += [
            make_check("go", "test", "test", ["go", "test", "./..."], folder, "go"),
            make_check("go", "build", "build", ["go", "build", "./..."], folder),
            make_check("go", "vet", "lint", ["go", "vet", "./..."], folder),
            make_check("go", "gofmt", "format", GOFMT, folder),
        ]
    return checks
