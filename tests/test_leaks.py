"""The leak family (checks/leaks.py, OWN205): a handle a model's creator made
that loses its last reference with no release and no hand-off. Small cases
of each shape; the fixtures (tests/fixtures/leaks/) are the reductions of
real code."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ownlint.checks import CHECKERS
from ownlint.engine.modelling.models import ModelSet, load_models
from ownlint.engine.program.project import EngineOptions, SourceFile, analyze_project


@pytest.fixture(scope="module")
def models() -> ModelSet:
    return load_models()


def leaks(source: str, models: ModelSet, code: str = "OWN205") -> list[int]:
    """The lines where `code` is reported in `source`."""
    (report,) = analyze_project([SourceFile("m.py", textwrap.dedent(source))], models, EngineOptions(checkers=CHECKERS))
    assert not report.errors
    return sorted(d.span.line for d in report.diagnostics if d.code == code)


HEADER = """
from cuda.bindings import driver, runtime
"""


def test_a_handle_lost_at_a_return_leaks(models: ModelSet) -> None:
    source = (
        HEADER
        + """
def f():
    err, s = runtime.cudaStreamCreate()
    err, start = runtime.cudaEventCreate()
    (err,) = runtime.cudaEventRecord(start, s)
    (err,) = runtime.cudaStreamSynchronize(s)
    (err,) = runtime.cudaStreamDestroy(s)
    return 1
"""
    )
    assert leaks(source, models) == [10]


def test_falling_off_the_end_rebinding_and_del_leak(models: ModelSet) -> None:
    source = (
        HEADER
        + """
def ends():
    err, s = runtime.cudaStreamCreate()
    (err,) = runtime.cudaStreamSynchronize(s)

def rebound():
    err, s = driver.cuStreamCreate(0)
    err, s = runtime.cudaStreamCreate()
    runtime.cudaStreamDestroy(s)

def deleted():
    err, s = runtime.cudaStreamCreate()
    del s
"""
    )
    assert leaks(source, models) == [6, 10, 15]


def test_a_handle_a_loop_makes_again_leaks_the_previous_one(models: ModelSet) -> None:
    """The previous iteration's handle dies where the loop makes the next one:
    a leak there when it is still held, none when it went into a container."""
    source = (
        HEADER
        + """
def kept(n):
    buffers = []
    for i in range(n):
        err, d = driver.cuMemAlloc(8)
        buffers += [(i, d)]
    for i, d in buffers:
        driver.cuMemFree(d)

def lost(n):
    for i in range(n):
        err, ev = runtime.cudaEventCreate()
    runtime.cudaEventDestroy(ev)
"""
    )
    assert leaks(source, models) == [14]


def test_a_released_returned_or_handed_off_handle_does_not_leak(models: ModelSet) -> None:
    source = (
        HEADER
        + """
def released():
    err, s = runtime.cudaStreamCreate()
    (err,) = runtime.cudaStreamSynchronize(s)
    runtime.cudaStreamDestroy(s)

def returned():
    err, s = runtime.cudaStreamCreate()
    return s

def in_a_tuple():
    err, s = runtime.cudaStreamCreate()
    err, e = runtime.cudaEventCreate()
    return (s, [e])

def to_an_unknown_call(pool):
    err, s = runtime.cudaStreamCreate()
    pool.keep(s)

def stored(holder):
    err, s = runtime.cudaStreamCreate()
    holder.stream = s

def yielded():
    err, s = runtime.cudaStreamCreate()
    yield s

def in_a_list(streams):
    err, s = runtime.cudaStreamCreate()
    streams.append(s)
"""
    )
    assert leaks(source, models) == []


def test_a_failed_creation_makes_nothing_to_leak(models: ModelSet) -> None:
    source = (
        HEADER
        + """
def f():
    err, s = runtime.cudaStreamCreate()
    if err != runtime.cudaError_t.cudaSuccess:
        return err
    runtime.cudaStreamDestroy(s)
    return err
"""
    )
    assert leaks(source, models) == []


def test_an_early_error_return_after_a_creation_leaks_once(models: ModelSet) -> None:
    source = (
        HEADER
        + """
def f(use):
    err, s = runtime.cudaStreamCreate()
    if err != runtime.cudaError_t.cudaSuccess:
        return err
    (err,) = runtime.cudaStreamSynchronize(s)
    if err != runtime.cudaError_t.cudaSuccess:
        return err
    if use(1):
        return 2
    runtime.cudaStreamDestroy(s)
    return err
"""
    )
    assert leaks(source, models) == [10]  # the first exit where it is lost, once


def test_a_call_of_the_same_runtime_is_no_hand_off(models: ModelSet) -> None:
    """`cudaEventRecord(ev, s)` reads its arguments and keeps neither."""
    source = (
        HEADER
        + """
def f(n):
    err, ev = runtime.cudaEventCreate()
    (err,) = runtime.cudaEventRecord(ev, 0)
    (err,) = runtime.cudaEventSynchronize(ev)
    err, ms = runtime.cudaEventElapsedTime(ev, ev)
    return ms
"""
    )
    assert leaks(source, models) == [9]


def test_no_leak_is_reported_where_paths_were_merged_past_the_budget(models: ModelSet) -> None:
    """tests/data/leaks/paths_merged_past_the_budget.py (a reduction of
    cuda-python's test_cufile.py, a false OWN205 once): a merge past the
    path budget forgot the list holding the handle; the function gets its
    budget note and no leak (it is no fixture: fixtures have no budget note)."""
    from pathlib import Path

    source = (Path(__file__).parent / "data" / "leaks" / "paths_merged_past_the_budget.py").read_text(encoding="utf-8")
    (report,) = analyze_project([SourceFile("m.py", source)], models, EngineOptions(checkers=CHECKERS))
    assert [e.kind for e in report.errors] == ["budget"]
    assert [d.code for d in report.diagnostics] == []


def test_a_handle_a_project_function_makes_and_returns_is_the_callers_to_release(models: ModelSet) -> None:
    """A helper that creates a handle, checks the status and returns the
    handle hands it to its caller: there it is a new handle, and the
    caller's path decides (TensorRT's `create_cuda_context` style)."""
    source = (
        HEADER
        + """
def make_stream():
    err, s = runtime.cudaStreamCreate()
    if err != runtime.cudaError_t.cudaSuccess:
        raise RuntimeError(err)
    return s

def make_twice():
    return make_stream()

def leaked():
    s = make_stream()
    (err,) = runtime.cudaStreamSynchronize(s)
    return 1

def leaked_through_two():
    s = make_twice()

def released():
    s = make_stream()
    runtime.cudaStreamDestroy(s)

def returned():
    s = make_stream()
    return s

def stored(holder):
    holder.s = make_stream()
"""
    )
    assert leaks(source, models) == [16, 19]


def test_a_status_tuple_given_to_a_checking_wrapper_comes_back_as_its_handle(models: ModelSet) -> None:
    """`check(runtime.cudaEventCreate())`: a project function that checks a
    creation's status tuple and returns what is left (cuda-python's
    `check_cuda_errors`, TensorRT's `cuda_call`) hands the handle back."""
    source = (
        HEADER
        + """
def check(result):
    if result[0].value:
        raise RuntimeError(result[0])
    return result[1]

def leaked():
    ev = check(runtime.cudaEventCreate())
    check(runtime.cudaEventSynchronize(ev))
    return 1

def released():
    ev = check(runtime.cudaEventCreate())
    check(runtime.cudaEventDestroy(ev))

def returned():
    return check(runtime.cudaEventCreate())
"""
    )
    assert leaks(source, models) == [12]


def test_a_handle_held_when_an_exception_is_raised_leaks_there(models: ModelSet) -> None:
    """OWN206: reported at the first call after the creation that may raise
    (here the exception built for the `raise`), not at the check of the
    creation's own status (when that raises, nothing was made)."""
    source = (
        HEADER
        + """
def two(n):
    err, a = runtime.cudaMalloc(n)
    if err != runtime.cudaError_t.cudaSuccess:
        raise RuntimeError(err)
    err, b = runtime.cudaMalloc(n)
    if err != runtime.cudaError_t.cudaSuccess:
        raise RuntimeError(err)
    return a, b
"""
    )
    assert leaks(source, models, "OWN206") == [10]  # the call the second `raise` makes; the function is related


def test_no_exception_path_leak_where_finally_releases_or_the_handle_leaks_anyway(models: ModelSet) -> None:
    source = (
        HEADER
        + """
def check(err):
    if err != runtime.cudaError_t.cudaSuccess:
        raise RuntimeError(err)

def in_finally(n, work):
    err, d = runtime.cudaMalloc(n)
    check(err)
    try:
        work(n)
    finally:
        runtime.cudaFree(d)

def no_raise_between(n):
    err, d = runtime.cudaMalloc(n)
    check(err)
    (err,) = runtime.cudaMemset(d, 0, n)
    runtime.cudaFree(d)
    check(err)

def leaked_anyway(n):
    err, d = runtime.cudaMalloc(n)
    check(err)
    if n > 1:
        raise ValueError(n)
    return 1
"""
    )
    assert leaks(source, models, "OWN206") == []


def test_leaks_on_exception_are_reported_only_where_selected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """OWN206 is a preview rule: `select = ["OWN"]` (the default) leaves it off."""
    from dataclasses import replace

    from ownlint import api
    from ownlint.config import default_config

    (tmp_path / "m.py").write_text(
        textwrap.dedent(
            """
            from cuda.bindings import runtime as cudart

            def allocate(n):
                err, a = cudart.cudaMalloc(n)
                if err != cudart.cudaError_t.cudaSuccess:
                    raise RuntimeError(err)
                err, b = cudart.cudaMalloc(n)
                if err != cudart.cudaError_t.cudaSuccess:
                    raise RuntimeError(err)
                return a, b
            """
        ),
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    config = default_config(tmp_path)
    assert [d.code for d in api.check_paths([Path("m.py")], config).findings] == []
    selected = replace(config, select=("OWN", "OWN206"))
    assert [(d.code, d.span.line) for d in api.check_paths([Path("m.py")], selected).findings] == [("OWN206", 10)]
