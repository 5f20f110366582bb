"""Which functions of the checked program may raise (engine/program/raising.py), and
the exception edge a call to one gets outside any `try`."""

from __future__ import annotations

import textwrap

import libcst as cst

from ownlint.checks import CHECKERS
from ownlint.engine.modelling.models import load_models
from ownlint.engine.program import raising
from ownlint.engine.program.project import EngineOptions, SourceFile, analyze_project


def _function(source: str) -> cst.FunctionDef:
    node = cst.parse_module(textwrap.dedent(source)).body[0]
    assert type(node) is cst.FunctionDef
    return node


def _never(call: cst.Call) -> bool:
    return type(call.func) is cst.Attribute and call.func.attr.value == "exit"


def test_a_function_raises_itself_by_raise_assert_or_a_call_that_never_returns() -> None:
    assert raising.raises_itself(_function("def f(e):\n    if e:\n        raise RuntimeError(e)\n"), _never)
    assert raising.raises_itself(_function("def f(e):\n    assert e == 0\n"), _never)
    assert raising.raises_itself(_function("def f(e):\n    sys.exit(1)\n"), _never)
    assert not raising.raises_itself(_function("def f(e):\n    return e\n"), _never)


def test_a_raise_its_own_handler_catches_or_a_nested_function_raises_is_not_its_own() -> None:
    caught = "def f(e):\n    try:\n        raise RuntimeError(e)\n    except RuntimeError:\n        pass\n"
    nested = "def f(e):\n    def g():\n        raise RuntimeError(e)\n    return g\n"
    reraised = "def f(e):\n    try:\n        g()\n    except RuntimeError:\n        raise\n"
    assert not raising.raises_itself(_function(caught), _never)
    assert not raising.raises_itself(_function(nested), _never)
    assert raising.raises_itself(_function(reraised), _never)


def test_a_function_that_calls_one_that_may_raise_may_raise_to_a_fixed_point() -> None:
    bodies = {
        "m.check": _function("def check(e):\n    raise RuntimeError(e)\n"),
        "m.middle": _function("def middle(e):\n    check(e)\n"),
        "m.top": _function("def top(e):\n    middle(e)\n"),
        "m.quiet": _function("def quiet(e):\n    print(e)\n"),
    }
    calls = {q: raising.own_calls(node) for q, node in bodies.items()}

    def target(q: str, call: cst.Call) -> str | None:
        name = call.func.value if type(call.func) is cst.Name else ""
        return f"m.{name}" if f"m.{name}" in bodies else None

    found = raising.may_raise(["m.check"], lambda last: list(calls.items()), target)
    assert found == {"m.check", "m.middle", "m.top"}


def test_a_status_check_that_raises_outside_any_try_is_a_way_out_by_an_exception() -> None:
    """OWN206 through a project function that raises, called outside any
    `try`; the same function with a check that only prints has none."""
    source = textwrap.dedent(
        """
        from cuda.bindings import runtime as cudart

        def check(err):
            if err != cudart.cudaError_t.cudaSuccess:
                raise RuntimeError(err)

        def note(err):
            if err != cudart.cudaError_t.cudaSuccess:
                print(err)

        def raising_check(n):
            err, d = cudart.cudaMalloc(n)
            check(err)
            (err,) = cudart.cudaMemset(d, 0, n)
            check(err)
            cudart.cudaFree(d)

        def printing_check(n):
            err, d = cudart.cudaMalloc(n)
            note(err)
            (err,) = cudart.cudaMemset(d, 0, n)
            note(err)
            cudart.cudaFree(d)
        """
    )
    (report,) = analyze_project([SourceFile("m.py", source)], load_models(), EngineOptions(checkers=CHECKERS))
    assert sorted(d.span.line for d in report.diagnostics if d.code == "OWN206") == [16]
