"""The engine's parse (engine/frontend/parsing.py) and its exact-type tests against libcst classes."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import libcst as cst
import pytest
from trees import libcst_tree, python_tree

from ownlint.engine.frontend import parsing

HERE = Path(__file__).resolve().parent
FIXTURES = sorted((HERE / "fixtures").rglob("*.py"))
SOURCES = sorted((HERE.parent / "src" / "ownlint").rglob("*.py"))


# `parsing.parse_module` is `libcst.parse_module` itself (the earlier version
# that reached into libcst is gone, see its docstring): a sample of the
# fixtures (every tenth) and of ownlint's own
# modules shows nothing wraps it differently; every fixture is parsed
# through it by the fixture tests anyway.
SAMPLE = FIXTURES[::10] + SOURCES[::10]


@pytest.mark.parametrize("path", SAMPLE, ids=lambda p: p.name)
def test_same_tree_as_libcst(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    tree = parsing.parse_module(source)
    assert tree.deep_equals(libcst_tree(path))
    assert tree.code == source


def test_a_syntax_error_is_the_same_as_libcst_s() -> None:
    for source in ["def f(:\n", "x = (\n", "\tif x:\n  pass\n"]:
        with pytest.raises(cst.ParserSyntaxError) as theirs:
            cst.parse_module(source)
        with pytest.raises(cst.ParserSyntaxError) as mine:
            parsing.parse_module(source)
        assert str(mine.value) == str(theirs.value)


def test_libcst_s_classes_are_left_as_they_are() -> None:
    """Nothing of ownlint's engine changes libcst's node classes: their
    nodes are validated and frozen as libcst makes them."""
    parsing.parse_module("x = f(1)\n")
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")
    with pytest.raises(dataclasses.FrozenInstanceError):
        cst.Name("x").value = "y"  # type: ignore[misc]


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


# private names ownlint reads on something other than `self` or `cls`: its own
# StateSet's helpers (stateset.py) and the interpreter's documented `os._exit`
OWN_PRIVATE = {("out", "_add"), ("out", "_bound"), ("os", "_exit")}


def test_no_reach_into_libcst_s_internals() -> None:
    """ownlint imports only libcst's public packages and reads no private
    (`_name`) attribute of anything but its own objects: libcst's
    `_codegen`, a provider's `_computed` and the like change without notice
    between the versions users install."""
    import ast

    imports: set[str] = set()
    private: set[tuple[str, str]] = set()
    for path in SOURCES:
        for node in ast.walk(python_tree(path)):  # the tree test_architecture reads too
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "libcst":
                imports.add(node.module)
            elif isinstance(node, ast.Import):
                imports.update(a.name for a in node.names if a.name.split(".")[0] == "libcst")
            elif isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                base = node.value.id if isinstance(node.value, ast.Name) else type(node.value).__name__
                if base not in ("self", "cls"):
                    private.add((base, node.attr))
    assert imports <= {"libcst", "libcst.metadata"}
    assert private <= OWN_PRIVATE, private - OWN_PRIVATE
