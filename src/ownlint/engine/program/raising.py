"""Which functions of the checked program may raise: a function whose own
body has a `raise` or an `assert` that no handler of its own catches (one
inside the body of a `try` with handlers is taken as caught), a call that
never returns, or a call to a function of the program that may raise.

Read off the syntax, before any analysis, and only in the files whose text
can matter (one that spells `raise`, `assert` or a call that never returns,
and then one that spells the name of a function found), so that the control-flow graph of
a caller can give such a call an exception edge (cfg_builder.py): a
status-checking wrapper (`check(status)` that raises when the status is
bad) called outside any `try` leaves its caller by an exception too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import libcst as cst

from ownlint.engine.frontend.walk import statement_children, walk


def raises_itself(fn: cst.CSTNode, never_returns: Callable[[cst.Call], bool]) -> bool:
    """Whether the function's own body (not the functions and classes nested
    in it) has a `raise` or `assert` statement that no handler of its own
    catches, or a statement that is a call that never returns. Statements
    only are walked, never expressions."""
    stack: list[tuple[cst.CSTNode, bool]] = [(c, False) for c in statement_children(fn)]
    while stack:
        node, caught = stack.pop()
        kind = type(node)
        if kind is cst.FunctionDef or kind is cst.ClassDef:
            continue
        if kind is cst.SimpleStatementLine or kind is cst.SimpleStatementSuite:
            if not caught and any(_raises(small, never_returns) for small in node.body):  # type: ignore[attr-defined]
                return True
            continue
        if kind is cst.Try or kind is cst.TryStar:
            body = node.body  # type: ignore[attr-defined]
            handled = caught or bool(node.handlers)  # type: ignore[attr-defined]
            stack.extend((c, handled if c is body else caught) for c in statement_children(node))
            continue
        stack.extend((c, caught) for c in statement_children(node))
    return False


def _raises(small: cst.BaseSmallStatement, never_returns: Callable[[cst.Call], bool]) -> bool:
    kind = type(small)
    if kind is cst.Raise or kind is cst.Assert:
        return True
    return kind is cst.Expr and type(small.value) is cst.Call and never_returns(small.value)  # type: ignore[attr-defined]


def own_calls(fn: cst.CSTNode) -> list[cst.Call]:
    """The calls of a function's own body (not of the functions, lambdas and classes nested in it)."""
    return [n for n in walk(fn, into_scopes=False) if type(n) is cst.Call]


def may_raise(
    raisers: Iterable[str],
    callers: Callable[[frozenset[str]], Iterable[tuple[str, list[cst.Call]]]],
    target: Callable[[str, cst.Call], str | None],
) -> frozenset[str]:
    """The functions (by qualified name) that may raise: `raisers`, those
    that raise themselves, and, to a fixed point, those that call one that
    may. `callers(last)` gives the functions that may call one whose last
    name is in `last` (those whose file spells one), each with its calls;
    `target(f, call)`: the function the call of `f` reaches. Only the calls
    spelled with such a last name are resolved."""
    found = set(raisers)
    new = set(found)
    while new:
        last = frozenset(name.rpartition(".")[2] for name in new)
        new = set()
        for name, calls in callers(last):
            if name in found or name in new:
                continue
            for call in calls:
                if _last_name(call) in last and target(name, call) in found:
                    new.add(name)
                    break
        found |= new
    return frozenset(found)


def _last_name(call: cst.Call) -> str | None:
    func = call.func
    if type(func) is cst.Name:
        return func.value
    if type(func) is cst.Attribute:
        return func.attr.value
    return None


def last_names(found: frozenset[str]) -> frozenset[str]:
    return frozenset(name.rpartition(".")[2] for name in found)


def calls_one(
    calls: list[cst.Call], found: frozenset[str], last: frozenset[str], target: Callable[[cst.Call], str | None]
) -> bool:
    """Whether one of the calls reaches a function of `found` (`last`: their last names)."""
    return any(_last_name(c) in last and target(c) in found for c in calls)
