"""Properties of the analysis on generated and mutated programs (hypothesis).

- Whatever valid Python hypothesmith generates, once it names a modelled API
  (so that the prefilter lets it through to the parser and the analysis),
  `api.check_source` never reports an internal error and gives the same
  answer twice.
- The fixture files, broken by random line-level edits (a line deleted,
  duplicated, swapped with the next, indented, a `pass` or a `zeMemFree`
  inserted): never an internal error, the same answer twice, every span
  inside the file.
- `runner.analyze` gives the same reports with one job as with four worker
  processes.

The example counts are small so that the file runs in well under a minute on
two cores; the generators still find the shallow crashes, and CI runs them
again with fresh random seeds every time. `pytest` alone runs half of each
count, CI's second stage twice each (hypothesis_profiles.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from ownlint import api, runner
from ownlint.checks import CHECKERS
from ownlint.config import default_config
from ownlint.diagnostics import FileReport, report_to_dict
from ownlint.engine.frontend import prefilter
from ownlint.engine.modelling.models import load_models
from ownlint.engine.program.sources import EngineOptions, SourceFile
from ownlint.lines import split_lines

FIXTURES = Path(__file__).resolve().parent / "fixtures"
FIXTURE_TEXTS = {
    p.relative_to(FIXTURES).as_posix(): p.read_text(encoding="utf-8") for p in sorted(FIXTURES.rglob("*.py"))
}
FIXTURE_NAMES = sorted(FIXTURE_TEXTS)

HEADER = "from ze import *\n"
TRAILER = "\nzeMemFree(ctx, p)\n"
SLOW_OK = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]


def outcome(source: str, path: str) -> dict[str, object]:
    """Everything a check of `source` reports, in a comparable form (the time taken left out)."""
    result = api.check_source(source, path, default_config(), report_unused_suppressions=True)
    internal = [e.message for e in result.errors if e.message.startswith("internal error")]
    assert not internal, internal
    assert not result.has_internal_error
    report = FileReport(path, list(result.findings), list(result.errors))
    return {
        "report": report_to_dict(report),
        "unused": [(u.path, u.line, u.column, u.what) for u in result.unused_suppressions],
    }


def assert_spans_inside(source: str, result: dict[str, object]) -> None:
    """Every reported span starts on a line of the file and does not end before it starts."""
    count = max(1, len(split_lines(source)))
    report = result["report"]
    assert isinstance(report, dict)
    for diagnostic in report["diagnostics"]:
        line, column, end_line, end_column = diagnostic["span"]
        assert 1 <= line <= count, (diagnostic["code"], diagnostic["span"], count)
        assert column >= 1 and (end_line, end_column) >= (line, column), diagnostic["span"]


# ---------------------------------------------------------------- generated programs


def from_grammar() -> st.SearchStrategy[str]:
    """hypothesmith's programs; imported here, when the test first draws one (the
    import builds a parser: a second in each pytest-xdist worker at collection)."""
    import hypothesmith

    return hypothesmith.from_grammar()


@settings(max_examples=examples(40), deadline=None, suppress_health_check=SLOW_OK)
@given(program=st.deferred(from_grammar))  # deferred: its grammar takes seconds to build, not at collection
def test_generated_programs_never_crash_the_analysis(program: str) -> None:
    source = HEADER + program + TRAILER
    first = outcome(source, "generated.py")
    assert outcome(source, "generated.py") == first


# ---------------------------------------------------------------- mutated fixtures

OPERATIONS = ("delete", "duplicate", "swap", "indent", "insert_pass", "insert_free")


def mutate(text: str, edits: list[tuple[str, int]]) -> str:
    lines = text.split("\n")
    for operation, position in edits:
        if not lines:
            lines = [""]
        i = position % len(lines)
        line = lines[i]
        indent = line[: len(line) - len(line.lstrip())]
        if operation == "delete":
            del lines[i]
        elif operation == "duplicate":
            lines.insert(i, line)
        elif operation == "swap" and i + 1 < len(lines):
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
        elif operation == "indent":
            lines[i] = "    " + line
        elif operation == "insert_pass":
            lines.insert(i, indent + "pass")
        elif operation == "insert_free":
            lines.insert(i, indent + "zeMemFree(hctx, p)")
    return "\n".join(lines)


edits_strategy = st.lists(
    st.tuples(st.sampled_from(OPERATIONS), st.integers(min_value=0, max_value=10_000)), min_size=1, max_size=6
)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=SLOW_OK)
@given(name=st.sampled_from(FIXTURE_NAMES), edits=edits_strategy)
def test_mutated_fixtures_never_crash_the_analysis(name: str, edits: list[tuple[str, int]]) -> None:
    source = mutate(FIXTURE_TEXTS[name], edits)
    first = outcome(source, name)
    assert outcome(source, name) == first
    assert_spans_inside(source, first)


def test_mutate_does_what_it_says() -> None:
    text = "a\n    b\nc"
    assert mutate(text, [("delete", 0)]) == "    b\nc"
    assert mutate(text, [("duplicate", 2)]) == "a\n    b\nc\nc"
    assert mutate(text, [("swap", 0)]) == "    b\na\nc"
    assert mutate(text, [("swap", 2)]) == text
    assert mutate(text, [("indent", 2)]) == "a\n    b\n    c"
    assert mutate(text, [("insert_pass", 1)]) == "a\n    pass\n    b\nc"
    assert mutate(text, [("insert_free", 4)]) == "a\n    zeMemFree(hctx, p)\n    b\nc"


# ---------------------------------------------------------------- jobs


@settings(
    max_examples=examples(3), deadline=None, suppress_health_check=[*SLOW_OK, HealthCheck.function_scoped_fixture]
)
@given(names=st.lists(st.sampled_from(FIXTURE_NAMES), min_size=2, max_size=8, unique=True))
def test_jobs_do_not_change_the_reports(names: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "PARALLEL_MIN_LINES", 0)  # worker processes even for a few small files
    files = [SourceFile(name, FIXTURE_TEXTS[name]) for name in names]
    models = load_models(())
    options = EngineOptions(checkers=CHECKERS)
    assume(len(prefilter.select(files, models)) > 1)  # one component is analysed in process whatever `jobs` says
    alone = runner.analyze(files, models, options, jobs=1)
    pooled = runner.analyze(files, models, options, jobs=4)
    assert [r.path for r in alone] == names
    assert [report_to_dict(r) for r in pooled] == [report_to_dict(r) for r in alone]
    # a fixture that stands alone finds its bugs alone (a package's module may need its siblings,
    # and a fixture next to a models.toml needs that model, which this run does not load)
    alone_ok = [f for f in files if "_pkg/" not in f.path and not (FIXTURES / f.path).with_name("models.toml").exists()]
    if any("# E:" in f.source for f in alone_ok):
        assert any(r.diagnostics for r in alone)


def test_the_profile_asked_for_decides_the_counts(request: pytest.FixtureRequest) -> None:
    """`pytest` alone runs the `quick` profile (conftest.py); `--hypothesis-profile=NAME`
    wins over it (CI's second stage asks for `thorough`), whatever paths are given."""
    from hypothesis_profiles import STANDARD, examples

    asked = request.config.getoption("hypothesis_profile") or "quick"
    assert settings().max_examples == {"quick": STANDARD // 2, "default": STANDARD, "thorough": STANDARD * 2}[asked]
    assert examples(60) == 60 * settings().max_examples // STANDARD
    assert examples(3) == max(3, 3 * settings().max_examples // STANDARD)  # a handful stays a handful
