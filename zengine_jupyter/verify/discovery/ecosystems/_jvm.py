"""Gradle and Maven builds (the wrapper script when the project has one)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zengine_jupyter.verify.discovery._project import ProjectView, make_check

if TYPE_CHECKING:
    from zengine_jupyter.protocol import CheckSpec

__all__ = ["discover_gradle", "discover_maven"]

_GRADLE_FILES = ("settings.gradle", "settings.gradle.kts", "build.gradle", "build.gradle.kts")


def discover_gradle(project: ProjectView) -> list[CheckSpec]:
    checks: list[CheckSpec] = []
    roots: list[str] = []
    for folder in project.folders:
        if not folder.has(*_GRADLE_FILES) or any(folder.is_inside(r) for r in roots):
            continue  # subprojects are built from the top
        roots.append(folder.rel)
        gradle = "./gradlew" if folder.has("gradlew") else "gradle"
        checks += [
            make_check("gradle", "test", "test", [gradle, "test"], folder),
            make_check("gradle", "build", "build", [gradle, "assemble"], folder),
        ]
    return checks


def discover_maven(project: ProjectView) -> list[CheckSpec]:
    checks: list[CheckSpec] = []
    roots: list[str] = []
    for folder in project.folders:
        if not folder.has("pom.xml") or any(folder.is_inside(r) for r in roots):
            continue  # modules are built by their parent
        roots.append(folder.rel)
        mvn = "./mvnw" if folder.has("mvnw") else "mvn"
        checks += [
            make_check("maven", "test", "test", [mvn, "-B", "test"], folder, "maven"),
            make_check("maven", "build", "build", [mvn, "-B", "package", "-DskipTests"], folder),
        ]
    return checks
