"""The engine's parse (engine/parsing.py) and its exact-type tests against libcst classes."""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
from pathlib import Path

import libcst as cst
import pytest

from ownlint.engine import parsing
from ownlint.engine.walk import walk

HERE = Path(__file__).resolve().parent
FIXTURES = sorted((HERE / "fixtures").rglob("*.py"))
SOURCES = sorted((HERE.parent / "src" / "ownlint").rglob("*.py"))
HOOK = cst.CSTNode.__dict__["__post_init__"]
# set by `test_the_same_with_unfrozen_nodes`, which runs this module's other
# tests again in a process of their own, as a worker runs the engine
UNFROZEN = os.environ.get("OWNLINT_TEST_UNFROZEN") == "1"
if UNFROZEN:
    parsing.unfreeze_nodes()


def switched_off() -> bool:
    return parsing._PARSING == [False]


@pytest.mark.parametrize("path", FIXTURES + SOURCES, ids=lambda p: p.name)
def test_same_tree_and_every_node_valid(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    fast = parsing.parse_module(source)
    assert fast.deep_equals(cst.parse_module(source))
    assert fast.code == source
    for node in walk(fast):
        node._validate()  # what the parse skipped: the parser's own nodes pass it
    assert switched_off()


def test_validation_is_back_after_a_syntax_error() -> None:
    with pytest.raises(cst.ParserSyntaxError):
        parsing.parse_module("def f(:\n")
    assert switched_off()
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")


def test_validation_is_skipped_while_parsing_only() -> None:
    seen = []

    def record(self: cst.CSTNode) -> None:
        seen.append(type(self))
        HOOK(self)

    cst.CSTNode.__post_init__ = record  # type: ignore[method-assign]
    try:
        parsing.parse_module("x = f(1)\n")
        assert seen == []
        cst.parse_module("x = f(1)\n")
        assert cst.Call in seen
        seen.clear()
        cst.Call(func=cst.Name("f"))
        assert seen[0] is cst.Name and seen[-1] is cst.Call  # and their default whitespace
    finally:
        cst.CSTNode.__post_init__ = HOOK  # type: ignore[method-assign]


def test_the_node_classes_have_a_switched_init() -> None:
    common = {cst.Name, cst.Call, cst.Arg, cst.SimpleWhitespace, cst.FunctionDef, cst.Module}
    assert common <= set(parsing.LIBCST_INITS)
    for cls in parsing.LIBCST_INITS:
        assert "_switch" in cls.__init__.__code__.co_names  # type: ignore[misc]
        assert (cls.__setattr__ is object.__setattr__) is UNFROZEN


@pytest.mark.skipif(UNFROZEN, reason="this is the test that runs the others unfrozen")
def test_the_same_with_unfrozen_nodes() -> None:
    """Every other test of this module passes in a process whose node classes
    are unfrozen (`unfreeze_nodes`), as the workers' are."""
    env = {**os.environ, "OWNLINT_TEST_UNFROZEN": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", str(Path(__file__))],
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert " passed" in run.stdout and " failed" not in run.stdout


def test_unfreezing_twice_changes_nothing() -> None:
    before = {cls: cls.__init__ for cls in parsing.LIBCST_INITS}  # type: ignore[misc]
    if UNFROZEN:
        parsing.unfreeze_nodes()
        assert before == {cls: cls.__init__ for cls in parsing.LIBCST_INITS}  # type: ignore[misc]


def test_the_native_parse_needs_libcst_loaded_and_says_so_with_a_key_error() -> None:
    """The premise of the fallback in `parse_module`: with the cheap
    `__import__`, a module missing from `sys.modules` is a KeyError."""
    entry = parsing._NATIVE[0]
    assert entry is not None
    loaded = sys.modules.pop("libcst")
    try:
        with pytest.raises(KeyError):
            entry("x = 1\n")
    finally:
        sys.modules["libcst"] = loaded


def test_a_key_error_from_the_native_parse_falls_back_for_good() -> None:
    calls = []

    def failing(source: str) -> cst.Module:
        calls.append(source)
        raise KeyError("libcst.somewhere")

    entry = parsing._NATIVE[0]
    parsing._NATIVE[0] = failing
    try:
        for _ in range(2):
            module = parsing.parse_module("x = f(1)\n")
            assert module.deep_equals(cst.parse_module("x = f(1)\n"))
        assert calls == ["x = f(1)\n"] and parsing._NATIVE[0] is None
        assert switched_off()
    finally:
        parsing._NATIVE[0] = entry


def test_a_syntax_error_is_the_same_as_libcst_s() -> None:
    for source in ["def f(:\n", "x = (\n", "\tif x:\n  pass\n"]:
        with pytest.raises(cst.ParserSyntaxError) as theirs:
            cst.parse_module(source)
        with pytest.raises(cst.ParserSyntaxError) as mine:
            parsing.parse_module(source)
        assert str(mine.value) == str(theirs.value)
    assert switched_off()


def first_of_each_class() -> dict[type, cst.CSTNode]:
    found: dict[type, cst.CSTNode] = {}
    for path in FIXTURES + SOURCES:
        for node in walk(cst.parse_module(path.read_text(encoding="utf-8"))):
            found.setdefault(type(node), node)
    return found


def same(a: object, b: object) -> bool:
    if isinstance(a, cst.CSTNode):
        return isinstance(b, cst.CSTNode) and a.deep_equals(b)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))  # type: ignore[arg-type]
    return a == b


def test_a_fast_init_stores_what_the_dataclass_init_stores() -> None:
    """Given only the fields without a default, both fill the others alike
    (defaults, and fresh values from default factories)."""
    checked = 0
    for cls, node in first_of_each_class().items():
        if cls not in parsing.LIBCST_INITS:
            continue
        required = {
            f.name: getattr(node, f.name)
            for f in dataclasses.fields(cls)
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        }
        try:
            expected = cls(**required)
        except cst.CSTValidationError:
            continue  # defaults that do not fit this node's values
        parsing._PARSING[0] = True
        try:
            made = cls(**required)
        finally:
            parsing._PARSING[0] = False
        for f in dataclasses.fields(cls):
            mine, theirs = getattr(made, f.name), getattr(expected, f.name)
            assert same(mine, theirs), (cls, f.name)
            if f.default_factory is not dataclasses.MISSING and isinstance(theirs, cst.CSTNode):
                assert mine is not theirs  # a fresh one, as the factory makes
        checked += 1
    assert checked > 50


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
