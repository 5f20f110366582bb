"""The engine's parse (engine/parsing.py) and its exact-type tests against libcst classes."""

from __future__ import annotations

import re
from pathlib import Path

import libcst as cst
import pytest

from ownlint.engine import parsing
from ownlint.engine.walk import walk

HERE = Path(__file__).resolve().parent
FIXTURES = sorted((HERE / "fixtures").rglob("*.py"))
SOURCES = sorted((HERE.parent / "src" / "ownlint").rglob("*.py"))
HOOK = cst.CSTNode.__dict__["__post_init__"]


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_same_tree_and_every_node_valid(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    fast = parsing.parse_module(source)
    assert fast.deep_equals(cst.parse_module(source))
    assert fast.code == source
    for node in walk(fast):
        node._validate()  # what the parse skipped: the parser's own nodes pass it
    assert cst.CSTNode.__dict__["__post_init__"] is HOOK


def test_validation_is_back_after_a_syntax_error() -> None:
    with pytest.raises(cst.ParserSyntaxError):
        parsing.parse_module("def f(:\n")
    assert cst.CSTNode.__dict__["__post_init__"] is HOOK
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")


def test_validation_is_skipped_while_parsing() -> None:
    seen = []

    def record(self: cst.CSTNode) -> None:
        seen.append(type(self))
        HOOK(self)

    cst.CSTNode.__post_init__ = record  # type: ignore[method-assign]
    try:
        hooked = parsing._VALIDATE
        parsing._VALIDATE = record
        parsing.parse_module("x = f(1)\n")
        assert seen == []
        cst.parse_module("x = f(1)\n")
        assert cst.Call in seen
    finally:
        parsing._VALIDATE = hooked
        cst.CSTNode.__post_init__ = HOOK  # type: ignore[method-assign]


# `type(x) is cst.Name` (instead of `isinstance`, which costs a Python-level
# ABC check per call on libcst's classes) is right only for classes that have
# no subclasses: check it for the installed libcst, for every such test in
# the engine.
_EXACT = re.compile(r"type\([^()]*(?:\([^()]*\))?[^()]*\) (?:is(?: not)?|(?:not )?in) (\(?cst\.\w+(?:, cst\.\w+)*\)?)")


def exact_type_classes() -> set[str]:
    found: set[str] = set()
    for path in SOURCES:
        for group in _EXACT.findall(path.read_text(encoding="utf-8")):
            found.update(re.findall(r"cst\.(\w+)", group))
    return found


def test_exact_type_tests_name_classes_without_subclasses() -> None:
    names = exact_type_classes()
    assert {"Name", "Call", "FunctionDef"} <= names  # the pattern finds them
    with_subclasses = {n: [c.__name__ for c in getattr(cst, n).__subclasses__()] for n in names}
    assert {n: s for n, s in with_subclasses.items() if s} == {}
