"""The selection loses no finding: every fixture gives the same reports with
and without relevance below the file (engine/frontend/relevance.py) and with
and without demand inside the project (engine/program/demand.py).

Every fixture (a file alone, a `*_pkg` directory as one project, with its
directory's `models.toml`) is analysed two ways, in this process: with
neither, and with both as every run has them (`ownlint.api` turns both on;
nothing runs one without the other); every report (findings with their
positions, stories and messages, and error entries) is the same. The
fixtures are split into shards so that `pytest -n` spreads them over its
workers. `test_the_comparison_covers_skipped_sections_and_inert_functions`
checks that the comparison proves something: the selection skipped sections
in a good part of the fixtures, and demand found enough functions inert.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_relevance import _models, _shown, _sources, _targets

from ownlint.checks import CHECKERS
from ownlint.engine.frontend import relevance
from ownlint.engine.modelling.models import ModelSet
from ownlint.engine.program.project import analyze_project, unique_module_names
from ownlint.engine.program.sources import EngineOptions
from ownlint.engine.program.whole_program import Project

SHARDS = 12
PLAIN = EngineOptions(checkers=CHECKERS)
SELECTED = EngineOptions(checkers=CHECKERS, sections=True, demand=True)  # as api.py runs the engine
DEMAND = EngineOptions(checkers=CHECKERS, demand=True)


@pytest.mark.slow  # every fixture analysed again: a property of the whole corpus, in the slow set (README)
@pytest.mark.parametrize("shard", range(SHARDS))
def test_every_fixture_gives_the_same_reports_with_and_without_the_selection_and_demand(shard: int) -> None:
    models: dict[Path, ModelSet] = {}
    compared = 0
    for target, files in _targets()[shard::SHARDS]:
        sources = _sources(files)
        if not sources:
            continue
        ms = _models(target, models)
        assert _shown(analyze_project(sources, ms, SELECTED)) == _shown(analyze_project(sources, ms, PLAIN)), target
        compared += 1
    assert compared > 200 // SHARDS


@pytest.mark.slow  # every fixture analysed again: a property of the whole corpus, in the slow set (README)
def test_the_comparison_covers_skipped_sections_and_inert_functions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sections skipped in at least 5 fixtures, and at least 100 functions
    found inert, over the fixtures the test above compares (what demand finds
    inert is known once the project is built: its analysis is left out here)."""
    inert: list[int] = []
    real = Project.__init__

    def spy(self: Project, *args: object, **kwargs: object) -> None:
        real(self, *args, **kwargs)  # type: ignore[arg-type]
        inert.append(len(self.inert))

    monkeypatch.setattr(Project, "__init__", spy)
    monkeypatch.setattr(Project, "analyze_unit", lambda self, unit: [])
    models: dict[Path, ModelSet] = {}
    skipped = 0
    for target, files in _targets():
        sources = _sources(files)
        if not sources:
            continue
        ms = _models(target, models)
        texts = relevance.kept_texts(sources, unique_module_names(sources), ms)
        skipped += any(t is not f.source for (t, _), f in zip(texts, sources, strict=True))
        analyze_project(sources, ms, DEMAND)
    assert skipped >= 5, skipped
    assert sum(inert) >= 100, sum(inert)


def test_a_component_below_sections_from_is_analysed_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """`sections_from`: a component of fewer characters is neither cut nor
    given demand (every function analysed), with the same reports; one of at
    least that many is cut as before."""
    target, files = next((t, f) for t, f in _targets() if len(f) > 1 and all(p.suffix == ".py" for p in f))
    sources = _sources(files)
    size = sum(len(s.source) for s in sources)
    ms = _models(target, {})
    cut: list[int] = []
    real_cut, real_init = relevance.kept_texts, Project.__init__
    demanded: list[bool] = []

    def counting(*args: object) -> object:
        cut.append(1)
        return real_cut(*args)  # type: ignore[arg-type]

    def spy(self: Project, units: object, models: object, options: EngineOptions, *rest: object) -> None:
        demanded.append(options.demand)
        real_init(self, units, models, options, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(relevance, "kept_texts", counting)
    monkeypatch.setattr(Project, "__init__", spy)
    whole = EngineOptions(checkers=CHECKERS, sections=True, demand=True, sections_from=size + 1)
    assert _shown(analyze_project(sources, ms, whole)) == _shown(analyze_project(sources, ms, PLAIN))
    assert (cut, demanded) == ([], [False, False])
    at_size = EngineOptions(checkers=CHECKERS, sections=True, demand=True, sections_from=size)
    assert _shown(analyze_project(sources, ms, at_size)) == _shown(analyze_project(sources, ms, PLAIN))
    assert (cut, demanded) == ([1], [False, False, True, False])
