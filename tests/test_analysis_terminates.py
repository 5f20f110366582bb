"""The flow analysis terminates, within its step budget, on generated interop code.

The analysis once ran forever on a four-line function (a loop multiplying a
value by an if-expression). Random programs did not find it: they named no
modelled call, so the prefilter skipped them before the analysis. The
programs here come from `tests/programs.py`, which builds modules out of the
calls `rules/*.toml` models, so every generated function is analysed; for
each, through `analyze_project` and its `FunctionStats`:

- no internal error;
- every function stays within its deterministic budget:
  `steps <= max(MIN_STEPS, STEPS_PER_NODE * size)`, plus a little (the last
  step is counted before the budget is checked: see `slack`);
- the analysis was reached (the generated functions took steps);
- the step counts are the same when the same source is analysed again.

Budget notes are not failures here (the budget is what makes the analysis
terminate); `benchmarks/functions.py` counts them over many programs, and
programs that should not need one are kept as fixtures under
`tests/fixtures/terminates/`.

Hypothesis runs derandomized with a fixed number of examples, so CI sees the
same programs every time and the file runs in a few seconds.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from programs import function_source

from ownlint.checks import CHECKERS
from ownlint.diagnostics import FileReport
from ownlint.engine.evaluator.typestate import FunctionAnalysis
from ownlint.engine.modelling.models import ModelSet, load_models
from ownlint.engine.program.project import analyze_project
from ownlint.engine.program.sources import EngineOptions, FunctionStats, SourceFile

SETTINGS = settings(
    max_examples=examples(150),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

ISSUE = """\
import dpctl.program

def f(k, n, m):
    assert isinstance(k, dpctl.program.SyclKernel)
    for i in range(5):
        n = n * (1 if i % 2 == 0 else 2)
        if n > m:
            break
"""


@pytest.fixture(scope="module")
def models() -> ModelSet:
    return load_models()


def analyse(source: str, models: ModelSet) -> tuple[FileReport, list[FunctionStats]]:
    stats: list[FunctionStats] = []
    reports = analyze_project([SourceFile("gen.py", source)], models, EngineOptions(checkers=CHECKERS), stats)
    assert len(reports) == 1
    return reports[0], stats


def limit(s: FunctionStats) -> int:
    return max(FunctionAnalysis.MIN_STEPS, FunctionAnalysis.STEPS_PER_NODE * s.size)


def slack(s: FunctionStats) -> int:
    """How far past its budget a function's count may end: steps are added
    before the budget is checked, a step that copies a path state counts one
    per few names it holds, so the last one can pass the limit by a little."""
    return 2 + limit(s) // 100


def check_terminates(source: str, models: ModelSet) -> list[FunctionStats]:
    report, stats = analyse(source, models)
    internal = [e.message for e in report.errors if e.message.startswith("internal error")]
    assert not internal, internal
    assert stats, "nothing was analysed: the program did not reach the analysis"
    over = [(s.name, s.line, s.steps, limit(s)) for s in stats if s.steps > limit(s) + slack(s)]
    assert not over, over
    generated = [s for s in stats if s.name.startswith("f") and s.name[1:].isdigit()]
    assert generated and all(s.steps > 0 for s in generated), [(s.name, s.steps) for s in stats]
    return stats


def steps_of(stats: list[FunctionStats]) -> list[tuple[str, int, int, int, str]]:
    return [(s.name, s.line, s.steps, s.size, s.note) for s in stats]


# ---------------------------------------------------------------- generated programs


@SETTINGS
@given(rng=st.randoms(use_true_random=False), size=st.integers(min_value=1, max_value=40))
def test_generated_programs_terminate_within_their_budget(models: ModelSet, rng: random.Random, size: int) -> None:
    check_terminates(function_source(rng, size), models)


@settings(SETTINGS, max_examples=examples(25))
@given(rng=st.randoms(use_true_random=False))
def test_step_counts_are_deterministic(models: ModelSet, rng: random.Random) -> None:
    source = function_source(rng, 30)
    first = steps_of(analyse(source, models)[1])
    assert steps_of(analyse(source, models)[1]) == first


@pytest.mark.parametrize(
    "seed", [0, 1, 2, *(pytest.param(s, marks=pytest.mark.slow) for s in (36, 214))]
)  # 36, 214: seconds each (budget-bound), slow (README)
def test_seeded_programs_terminate_and_repeat(models: ModelSet, seed: int) -> None:
    """Programs from plain seeds (the distribution `benchmarks/functions.py` runs), twice."""
    source = function_source(random.Random(seed))
    assert function_source(random.Random(seed)) == source  # a seed reproduces a program
    first = steps_of(check_terminates(source, models))
    assert steps_of(analyse(source, models)[1]) == first


# ---------------------------------------------------------------- the issue


def test_the_issue_function_is_analysed_with_no_budget_note(models: ModelSet) -> None:
    report, stats = analyse(ISSUE, models)
    assert not report.errors, [(e.kind, e.message) for e in report.errors]
    assert not report.diagnostics
    f = [s for s in stats if s.name == "f"]
    assert len(f) == 1 and 0 < f[0].steps <= limit(f[0]) and not f[0].note


def test_the_issue_function_repeats_its_step_count(models: ModelSet) -> None:
    assert steps_of(analyse(ISSUE, models)[1]) == steps_of(analyse(ISSUE, models)[1])


# ---------------------------------------------------------------- the generator itself


def test_generator_output_is_valid_python_and_names_modelled_calls() -> None:
    for seed in range(200):
        source = function_source(random.Random(seed), size=seed % 50 + 1)
        compile(source, f"<seed {seed}>", "exec")
        assert "def f0(" in source
