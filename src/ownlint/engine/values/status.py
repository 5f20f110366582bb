"""Status results: a modelled call that returns a status (its model file has
`success`, rules/README.md) had its effects only where the status is a
success value. The call runs with its effects (it creates, releases, maps)
and returns a `Status` that remembers them; a branch that tests the status
(`if st != OK:`, `if st:`, `if f(...) == OK:`) keeps both outcomes, and on
the side where the call failed the effects are undone (for each object the
call changed, where its state is still the one the call left). Every name
holding that status then holds the decided outcome, so a later test of the
same status is correlated with the first, as branches on one unchanged local are.
"""

from __future__ import annotations

import libcst as cst

from ownlint.engine.evaluator.typestate_base import literal
from ownlint.engine.values.state import HState, PathState
from ownlint.engine.values.values import Const, Obj, Seq, Status, Sym, Val


def made(call: cst.Call, before: dict[Obj, HState | None], st: PathState) -> Status | None:
    """The status of `call`, given the states of the objects it may change
    as they were before it ran (a call that changed nothing still has one:
    a test of it decides its outcome, which checkers learn from `Assume`)."""
    effects = tuple((o, hs, st.heap.get(o)) for o, hs in before.items() if st.heap.get(o) is not hs)
    return Status(id(call), effects)


def result(status: Status | None, index: int | None, handles: dict[int, Val]) -> Val:
    """The value a status call returns: the status itself, or a tuple with the
    status at `index` and the returned handles at theirs."""
    if index is None:
        return status if status is not None else handles.get(0)
    n = max(index, *handles) + 1 if handles else index + 1
    items: list[Val] = [handles.get(i) for i in range(n)]
    items[index] = status
    return Seq(tuple(items))


def alone(v: Val) -> Val:
    """The status in a status call's tuple result (`(err,) = f()`, `err, h =
    g()`) where the whole result is compared (`rc = f(); rc != 0`): that is
    a spelling of the call that returns the bare status (a C library through
    ctypes returns an `int`) under the name of one that returns a tuple, as
    a tuple never equals a status value. Any other value as it is."""
    if type(v) is Seq:
        found = [x for x in v.items if type(x) is Status]
        if len(found) == 1:
            return found[0]
    return v


def _spelling(node: cst.BaseExpression) -> str | None:
    """How a value compared to a status is spelled: a last dotted name, or an integer."""
    if type(node) is cst.Name:
        return node.value
    if type(node) is cst.Attribute:
        return node.attr.value
    lit = literal(node)
    if lit is not None and isinstance(lit.value, int) and not isinstance(lit.value, bool):
        return str(lit.value)
    return None


def _is_success(node: cst.BaseExpression, value: Val, success: set[str]) -> bool:
    """Whether the compared expression is a success value: spelled as one, or
    a name whose value is one (an imported name or a module constant aliasing
    it, `OK = lib.Result.SUCCESS`; an integer constant)."""
    if _spelling(node) in success:
        return True
    if type(value) is Sym:
        return value.name.rpartition(".")[2] in success
    if type(value) is Const and isinstance(value.value, int) and not isinstance(value.value, bool):
        return str(value.value) in success
    return False


def compare(node: cst.Comparison, left: Val, right: Val, success: set[str]) -> Val:
    """`status != S` / `status == S` (`is`, `is not` too), with `S` a success
    value (`_is_success`): a status value true on failure, or on success."""
    if len(node.comparisons) != 1:
        return None
    op = node.comparisons[0].operator
    if type(left) is Status and type(right) is not Status:
        status, other, value = left, node.comparisons[0].comparator, right
    elif type(right) is Status and type(left) is not Status:
        status, other, value = right, node.left, left
    else:
        return None
    if not status.failed_if_true or not _is_success(other, value, success):
        return None
    if type(op) is cst.NotEqual or type(op) is cst.IsNot:
        return status
    if type(op) is cst.Equal or type(op) is cst.Is:
        return Status(status.call, status.effects, status.outcome, failed_if_true=False)
    return None


def assume(value: Status, want: bool, st: PathState) -> PathState | None:
    """`st` where a test whose value is `value` came out `want` (None: impossible)."""
    failed = want == value.failed_if_true
    if value.outcome is not None:
        return st if value.outcome != failed else None
    s = st.copy()
    if failed:
        for obj, before, after in value.effects:
            now = s.heap.get(obj)
            if now is not None and after is not None and now.facts != after.facts:
                now = now.but(facts=after.facts)  # what checkers recorded since is no change of the call's
            if now == after and not (now is not None and now.reported):
                if before is None:
                    s.heap.pop(obj, None)
                elif now is not None:
                    s.heap[obj] = before.but(facts=st.heap[obj].facts)  # checkers' facts are theirs to undo
                else:
                    s.heap[obj] = before
    for key, v in st.env.items():
        if type(v) is Status and v.call == value.call and v.effects == value.effects and v.outcome is None:
            s.env[key] = Status(v.call, (), not failed, v.failed_if_true)
    return s
