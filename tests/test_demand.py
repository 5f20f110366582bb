"""Demand inside the project (engine/program/demand.py): a function that cannot
touch a tracked value is analysed only when a caller needs its summary, and
that loses no finding.

The proof on the fixtures is `tests/test_selection.py` (every fixture gives
the same reports with and without the selection and demand, as a run has
them both, and enough functions are found inert there); these tests are demand's own cases.
"""

from __future__ import annotations

from test_relevance import _shown

from ownlint.checks import CHECKERS
from ownlint.engine.modelling.models import load_models
from ownlint.engine.program.project import analyze_project
from ownlint.engine.program.sources import EngineOptions, SourceFile
from ownlint.engine.program.whole_program import Project


def _inert(source: str) -> set[str]:
    files = [SourceFile("mod.py", source, None)]
    found: list[set[str]] = []
    real = Project.__init__

    def spy(self: Project, *args: object, **kwargs: object) -> None:
        real(self, *args, **kwargs)  # type: ignore[arg-type]
        found.append(self.inert)

    Project.__init__ = spy  # type: ignore[method-assign]
    try:
        analyze_project(files, load_models(), EngineOptions(checkers=CHECKERS, demand=True))
    finally:
        Project.__init__ = real  # type: ignore[method-assign]
    return {q.rpartition(".")[2] for q in found[0]}


HEAD = "from cuda import cudart\nimport torch\nimport cutlass.cute as cute\n"


def test_a_function_that_names_no_model_is_inert_and_its_callers_are_not() -> None:
    source = HEAD + (
        "def arith(a, b):\n    return a * b\n\n"
        "def alloc():\n    err, p = cudart.cudaMalloc(8)\n    return p\n\n"
        "def caller():\n    return alloc()\n\n"
        "def kernel(x):\n    t = cute.empty(x)\n    return arith(t, 2)\n\n"  # `empty` of CuTe, not torch's
        "def host(n):\n    return torch.empty(n)\n"
    )
    assert _inert(source) == {"arith", "kernel"}


def test_a_class_with_a_live_method_makes_its_builders_live() -> None:
    source = HEAD + (
        "class Buf:\n    def __init__(self):\n        self.p = cudart.cudaMalloc(8)[1]\n"
        "    def size(self):\n        return 8\n\n"
        "def make():\n    return Buf()\n\n"
        "class Holder:\n    def __init__(self):\n        self.b = Buf()\n"
        "    def drop(self):\n        self.b = None\n"
    )
    inert = _inert(source)
    assert "size" in inert and "make" not in inert and "drop" not in inert


def test_a_module_name_holding_a_handle_makes_its_readers_live() -> None:
    source = (
        HEAD + "P = cudart.cudaMalloc(8)[1]\n\ndef drop():\n    global P\n    P = None\n\ndef other():\n    return 1\n"
    )
    assert _inert(source) == {"other"}


def test_an_inert_function_a_live_caller_needs_is_analysed_for_its_summary() -> None:
    source = HEAD + (
        "def keep(x, store):\n    store.append(x)\n\n"
        "def f(store):\n    err, p = cudart.cudaMalloc(8)\n    keep(p, store)\n"  # escapes: no leak
        "def g():\n    err, p = cudart.cudaMalloc(8)\n"  # E: leak
    )
    files = [SourceFile("mod.py", source, None)]
    ms = load_models()
    on = analyze_project(files, ms, EngineOptions(checkers=CHECKERS, demand=True))
    off = analyze_project(files, ms, EngineOptions(checkers=CHECKERS))
    assert _shown(on) == _shown(off)
    assert [(d.code, d.span.line) for d in on[0].diagnostics] == [("OWN205", 11)], on[0].diagnostics


def test_a_borrow_alone_makes_no_function_live() -> None:
    source = HEAD + (
        "def ptr(t):\n    return t.data_ptr()\n\ndef host(n):\n    t = torch.empty(n)\n    return t.data_ptr()\n"
    )
    assert _inert(source) == {"ptr"}


def test_only_what_module_code_binds_can_hold_a_handle() -> None:
    source = HEAD + (
        "def host(n):\n    return torch.empty(n)\n\n"
        "def kernel(x):\n    return cute.size(x)\n\n"
        "if __name__ == '__main__':\n    kept = host(cute.size(4))\n\n"
        "def reader():\n    return kept\n"
    )
    assert _inert(source) == {"kernel"}


def test_a_method_reaches_live_methods_only_of_its_own_family_or_of_classes_it_spells() -> None:
    source = HEAD + (
        "class Pool:\n    def add(self, n):\n        return cudart.cudaMalloc(n)[1]\n\n"
        "class Graph:\n    def add(self, node):\n        return node\n"
        "    def build(self):\n        self.add(1)\n\n"
        "class Sub(Pool):\n    def grow(self):\n        return self.add(8)\n\n"
        "def uses_pool():\n    return Pool().add(4)\n"
    )
    inert = _inert(source)
    assert "build" in inert and "grow" not in inert and "uses_pool" not in inert


def test_a_package_word_counts_through_a_module_alias_of_the_package_only() -> None:
    source = HEAD + (
        "xp = torch\nSIZE = 4\n\n"
        "def host(n):\n    return xp.empty(n)\n\n"
        "def kernel(x):\n    return cute.empty(x, SIZE)\n"
    )
    assert _inert(source) == {"kernel"}
