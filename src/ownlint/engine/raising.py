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

from collections.abc import Callable

import libcst as cst

from ownlint.engine.walk import children

_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)


def read(fn: cst.CSTNode, never_returns: Callable[[cst.Call], bool]) -> tuple[bool, list[cst.Call]]:
    """One walk of a function's own body (not of the functions, lambdas and
    classes nested in it): whether it raises itself (a `raise` or `assert` no
    handler of its own catches, or a call that never returns), and its calls."""
    calls: list[cst.Call] = []
    raises = False
    stack: list[tuple[cst.CSTNode, bool]] = [(c, False) for c in children(fn)]
    while stack:
        node, caught = stack.pop()
        kind = type(node)
        if kind in _SCOPES:
            continue
        if kind is cst.Call:
            calls.append(node)  # type: ignore[arg-type]
            if not caught and not raises and never_returns(node):  # type: ignore[arg-type]
                raises = True
        elif (kind is cst.Raise or kind is cst.Assert) and not caught:
            raises = True
        elif kind is cst.Try or kind is cst.TryStar:
            body = node.body  # type: ignore[attr-defined]
            handled = caught or bool(node.handlers)  # type: ignore[attr-defined]
            stack.extend((c, handled if c is body else caught) for c in children(node))
            continue
        stack.extend((c, caught) for c in children(node))
    return raises, calls


def may_raise(
    functions: dict[str, tuple[bool, list[cst.Call]]],
    target: Callable[[str, cst.Call], str | None],
) -> frozenset[str]:
    """The functions (by qualified name: what `read` found of each) that may
    raise: those that raise themselves, and, to a fixed point, those that call
    one that may (`target`: the function a call of a function reaches). Only
    the calls spelled with the last name of a function found are resolved."""
    found = {name for name, (raises, _) in functions.items() if raises}
    new = set(found)
    while new:
        last = {name.rpartition(".")[2] for name in new}
        new = set()
        for name, (_, calls) in functions.items():
            if name in found:
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
