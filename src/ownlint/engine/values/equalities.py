"""What a path assumed about an unchanged local compared with constants.

`if err == E_OOM:` then, on that branch, `assert err == E_OK`: the assert
cannot hold there, so the path ends (its false side raises). A comparison of
a local name with constants (`x == C`, `x != C`, `C == x`, `x in (C1, C2)`,
`x not in (...)`, in an `if`, a `while` or an `assert`) is kept in the path's
`conds` as a fact about the name, and a later comparison of the same name
that the facts decide keeps only the side they allow. Rebinding the name
forgets its facts (`forget`).

Constants are literals (numbers, strings, None, True, False) and dotted names
whose first part is not a local of the function (`lib.Result.E_OK`,
`errors.E_NOMEM`): an enumeration's members, a module's constants. Two constants are known to differ only when both are literals of
different values, or both are dotted names that differ only in their last
part (two members of one enumeration, two names of one module). Anything else
may be equal (`0` and `lib.Result.E_OK`, an alias): such a pair decides nothing.

Known limits: an enumeration whose two member names have one value (an
alias, which Python's `enum` allows) is taken as two values, so a path
through both tests is dropped; that loses findings on it, never makes one.
A constant spelled through a local (`OK = E.OK` inside the function) is no
constant here.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

import libcst as cst

from ownlint.engine.frontend.cfg import source_of
from ownlint.engine.values.state import PathState

_NAMED = {"None": "None", "True": "1", "False": "0"}  # True == 1, False == 0
_EQ = " == "
_IN = " in "
_SEP = " | "


def _constant(node: cst.BaseExpression, env: Mapping[str, object]) -> str | None:
    """The text that stands for constant `node`, or None when it is no constant."""
    literal = type(node) in (cst.Integer, cst.SimpleString) or (
        type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus and type(node.expression) is cst.Integer
    )
    if literal:
        try:
            return repr(ast.literal_eval(source_of(node)))  # one text for one value: 0x10 is 16
        except (ValueError, SyntaxError, MemoryError):
            return None
    if type(node) is cst.Name:
        return _NAMED.get(node.value)  # a bare name may be anything, but these
    if type(node) is cst.Attribute:
        root: cst.BaseExpression = node
        while type(root) is cst.Attribute:
            root = root.value
        if type(root) is cst.Name and root.value not in env:
            return source_of(node)
    return None


def _distinct(a: str, b: str) -> bool:
    """Whether constants `a` and `b` are known to be different values."""
    if a == b:
        return False
    a_dotted, b_dotted = _dotted(a), _dotted(b)
    if a_dotted and b_dotted:
        return a.rpartition(".")[0] == b.rpartition(".")[0]
    return not a_dotted and not b_dotted


def _dotted(text: str) -> bool:
    return all(part.isidentifier() for part in text.split(".")) and text != "None"


def comparison(test: cst.BaseExpression, env: Mapping[str, object]) -> tuple[str, tuple[str, ...], bool] | None:
    """(name, constants, positive) for a test of a local name against constants:
    `x == C` is (x, (C,), True), `x != C` (x, (C,), False), `x in (A, B)` (x, (A, B), True)."""
    if type(test) is not cst.Comparison or len(test.comparisons) != 1:
        return None
    target = test.comparisons[0]
    op, left, right = target.operator, test.left, target.comparator
    if type(op) in (cst.Equal, cst.NotEqual):
        if type(left) is not cst.Name and type(right) is cst.Name:
            left, right = right, left
        if type(left) is not cst.Name:
            return None
        constant = _constant(right, env)
        return (left.value, (constant,), type(op) is cst.Equal) if constant is not None else None
    if (
        type(op) in (cst.In, cst.NotIn)
        and type(left) is cst.Name
        and (type(right) is cst.Tuple or type(right) is cst.List or type(right) is cst.Set)
    ):
        constants = []
        for element in right.elements:
            if type(element) is not cst.Element:
                return None
            constant = _constant(element.value, env)
            if constant is None:
                return None
            constants.append(constant)
        return (left.value, tuple(constants), type(op) is cst.In) if constants else None
    return None


def decide(conds: Mapping[str, bool], name: str, constants: tuple[str, ...]) -> bool | None:
    """Whether `name in constants` holds on a path with these facts; None: not known."""
    if not constants:
        return None
    equal, within, excluded = None, None, set()
    for key, truth in conds.items():
        if key.startswith(name + _EQ):
            value = key[len(name) + len(_EQ) :]
            if truth:
                equal = value
            else:
                excluded.add(value)
        elif key.startswith(name + _IN):
            values = set(key[len(name) + len(_IN) :].split(_SEP))
            if truth:
                within = values if within is None else within & values
            else:
                excluded |= values
    if equal is not None:
        if equal in constants:
            return True
        if all(_distinct(equal, c) for c in constants):
            return False
    if within is not None:
        if within <= set(constants):
            return True
        if all(_distinct(w, c) for w in within for c in constants):
            return False
    if set(constants) <= excluded:
        return False
    return None


def fact(name: str, constants: tuple[str, ...]) -> str:
    """The key of the fact `name in constants` in a path's `conds`."""
    return name + _EQ + constants[0] if len(constants) == 1 else name + _IN + _SEP.join(sorted(set(constants)))


def forget(conds: dict[str, bool], name: str) -> None:
    """Drops what `conds` says of `name` compared with constants (it was rebound)."""
    for key in [k for k in conds if k.startswith(name + _EQ) or k.startswith(name + _IN)]:
        del conds[key]


def assume(test: cst.BaseExpression, want: bool, st: PathState) -> PathState | None:
    """`st` where `test`, if a comparison of a local with constants, came out `want`; None where the
    path's earlier comparisons of that local rule it out. Any other test: `st` as it is."""
    compared = comparison(test, st.env)
    if compared is None:
        return st
    name, constants, positive = compared
    holds = want == positive  # whether `name in constants`
    known = decide(st.conds, name, constants)
    if known is not None:
        return st if known == holds else None
    s = st.copy()
    s.conds[fact(name, constants)] = holds
    return s
