"""Which functions of the checked program may raise: a function whose own
body has a `raise` or an `assert` that no handler of its own catches (one
inside the body of a `try` with handlers is taken as caught), a call that
never returns, or a call to a function of the program that may raise.

Read off the syntax, before any analysis, so that the control-flow graph of
a caller can give such a call an exception edge (cfg_builder.py): a
status-checking wrapper (`check(status)` that raises when the status is
bad) called outside any `try` leaves its caller by an exception too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

import libcst as cst

from ownlint.engine.walk import children

_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)


def own_calls(fn: cst.CSTNode) -> Iterator[cst.Call]:
    """The calls of a function's own body (not of the functions, lambdas and classes nested in it)."""
    stack = list(children(fn))
    while stack:
        node = stack.pop()
        if type(node) is cst.Call:
            yield node
        if type(node) not in _SCOPES:
            stack.extend(children(node))


def raises_itself(fn: cst.CSTNode, never_returns: Callable[[cst.Call], bool]) -> bool:
    """Whether the function's own body has a `raise` or `assert` no handler of it catches, or a call that never returns."""
    stack: list[tuple[cst.CSTNode, bool]] = [(c, False) for c in children(fn)]
    while stack:
        node, caught = stack.pop()
        kind = type(node)
        if kind in _SCOPES:
            continue
        if (kind is cst.Raise or kind is cst.Assert) and not caught:
            return True
        if kind is cst.Call and not caught and never_returns(node):  # type: ignore[arg-type]
            return True
        if kind is cst.Try or kind is cst.TryStar:
            t = node  # type: ignore[assignment]
            stack.append((t.body, caught or bool(t.handlers)))  # type: ignore[attr-defined]
            stack.extend((c, caught) for c in children(node) if c is not t.body)  # type: ignore[attr-defined]
            continue
        stack.extend((c, caught) for c in children(node))
    return False


def may_raise(
    functions: Iterable[tuple[str, cst.CSTNode]],
    itself: Callable[[str, cst.CSTNode], bool],
    callees: Callable[[str, cst.CSTNode], Iterable[str]],
) -> frozenset[str]:
    """The functions (by qualified name) that may raise: those that raise
    themselves, and, to a fixed point, those that call one that may."""
    called_by: dict[str, set[str]] = {}
    found: set[str] = set()
    todo: list[str] = []
    for name, node in functions:
        if itself(name, node):
            found.add(name)
            todo.append(name)
        for callee in callees(name, node):
            called_by.setdefault(callee, set()).add(name)
    while todo:
        for caller in called_by.get(todo.pop(), ()):
            if caller not in found:
                found.add(caller)
                todo.append(caller)
    return frozenset(found)
