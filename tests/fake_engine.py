"""A stand-in for `ownlint.engine.program.project.analyze_project` in tests of the shell around the engine.

It reports OWN201 at every call of `free_again(...)` (with the line above as
"first freed here") and OWN203 at every call of `use_after(...)`; nothing
else. Tests install it with `install(monkeypatch)`.
"""

from __future__ import annotations

import pytest

from ownlint import runner
from ownlint.diagnostics import Diagnostic, FileReport, Related, Span
from ownlint.engine.modelling.models import ModelSet
from ownlint.engine.program import project

MARKERS = {
    "free_again(": ("OWN201", "`p` is freed a second time", "freed again here"),
    "use_after(": ("OWN203", "`p` is used after it was freed", "used here after the free"),
}


def diagnostics_for(file: project.SourceFile) -> list[Diagnostic]:
    found = []
    for number, line in enumerate(file.source.splitlines(), start=1):
        for marker, (code, message, label) in MARKERS.items():
            column = line.find(marker)
            if column < 0:
                continue
            end = line.index(")", column) + 2
            related: tuple[Related, ...] = ()
            if code == "OWN201" and number > 1:
                related = (Related(file.path, Span(number - 1, 1, number - 1, 2), "first freed here"),)
            span = Span(number, column + 1, number, end)
            found.append(
                Diagnostic(code, file.path, span, message, related, help="free it once", label=label, handle="p")
            )
    return found


def fake_analyze_project(
    files: list[project.SourceFile], models: ModelSet, options: project.EngineOptions
) -> list[FileReport]:
    return [FileReport(f.path, diagnostics_for(f)) for f in files]


def install(monkeypatch: pytest.MonkeyPatch) -> list[list[project.SourceFile]]:
    """Replace the engine; returns the list that records each call's files."""
    calls: list[list[project.SourceFile]] = []

    def recording(
        files: list[project.SourceFile], models: ModelSet, options: project.EngineOptions
    ) -> list[FileReport]:
        calls.append(list(files))
        return fake_analyze_project(files, models, options)

    def whole_run(
        files: list[project.SourceFile],
        models: ModelSet,
        options: project.EngineOptions,
        jobs: int | None = None,
        cache: object = None,
        done: object = None,
    ) -> list[FileReport]:
        return recording(files, models, options)

    monkeypatch.setattr(project, "analyze_project", recording)
    monkeypatch.setattr(runner, "analyze", whole_run)  # the prefilter would skip the fake's marker calls
    return calls
