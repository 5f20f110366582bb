"""Function summaries: what a call to a project function does, seen from the caller.

A summary is read off the exit states of the callee's own analysis, so it is
built from the same effects the models declare (creations, frees, uses, and
later transfers, mappings, consumptions): a new rule family works through
helpers with no code here.

Each `Outcome` is one way the callee can return: the conditions it assumed
about its parameters (`if really: free(p)`), what happened first and last to
each parameter (and to each `self.x` it read), what it left in each `self.x`
and what it returned. At a call site the caller keeps the outcomes its own
knowledge allows and forks over the rest, so a helper that frees only when
its flag is set frees only on the paths where the caller's flag is set.

Recursion: a call to a function whose summary is being computed (a cycle)
is taken to have no effect and to return nothing known. That is a bound, not
a fixed point: effects that happen only through the recursion are lost, and
no finding is invented.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ownlint.engine.state import OWNER, OWNER_DEAD, HState, PathState, Step


def _objects(v: object) -> list[int]:
    if isinstance(v, int):
        return [v]
    if isinstance(v, tuple) and v and v[0] == "seq":
        return [o for x in v[1] for o in _objects(x)]
    return []


# Where a value the callee hands back came from:
#   ("param", i)         the caller's i-th argument
#   ("field", "x")       the caller's `self.x` (for `self.method()` calls)
#   ("fresh", HState)    an object made inside the callee, in that state
#   None                 nothing known
ValueDesc = None | tuple[Any, ...]


# Whom a handle the callee transferred, kept or borrowed belongs to afterwards:
#   ("ret",)            the object the callee returns
#   ("param", i)        the caller's i-th argument
#   ("dead", story)     an owner local to the callee, dead once it returns
#   ("alive",) / None   an owner the caller cannot see (may be alive)
OwnerDesc = None | tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class Outcome:
    conds: tuple[tuple[int, bool], ...]  # parameter index -> assumed truthiness
    params: tuple[tuple[int, HState, OwnerDesc], ...]  # parameter index -> its final typestate
    fields: tuple[tuple[str, HState, OwnerDesc], ...]  # self.x (as read on entry) -> its final typestate
    rebinds: tuple[tuple[str, ValueDesc], ...]  # self.x -> what the callee left in it
    ret: ValueDesc


@dataclass(frozen=True, slots=True)
class Summary:
    name: str  # for messages: `release`, `Arena.release`
    unit: int
    params: tuple[str, ...]
    defaults: tuple[tuple[int, object], ...]  # parameter index -> literal default value
    is_method: bool  # the first parameter is `self`
    outcomes: tuple[Outcome, ...]


EMPTY_OUTCOME = Outcome((), (), (), (), None)


def describe_value(v: object, st: PathState, fields: dict[str, int], nparams: int) -> ValueDesc:
    if isinstance(v, int):
        if -nparams <= v < 0:
            return ("param", -v - 1)
        for attr, obj in fields.items():
            if obj == v:
                return ("field", attr)
        hs = st.heap.get(v)
        if hs is not None:
            if hs.kind == OWNER:
                hs = hs.but(escaped=False, owner=None)  # the caller holds the only reference now
            return ("fresh", hs, describe_owner(hs.owner, st, (), nparams, None))
    return None


def describe_owner(
    owner: int | None, st: PathState, returned: tuple[int, ...], nparams: int, end: Step | None
) -> OwnerDesc:
    if owner is None:
        return None
    if owner in returned:
        return ("ret",)
    if -nparams <= owner < 0:
        return ("param", -owner - 1)
    hs = st.heap.get(owner)
    if hs is None:
        return ("alive",)
    if hs.kind == OWNER_DEAD:
        return ("dead", hs.story)
    if hs.kind == OWNER and not hs.escaped and owner >= 0:
        return ("dead", hs.story)  # a local owner: it dies when the callee returns
    return ("alive",)


def outcome_of(st: PathState, params: list[str], fields: dict[str, int], self_name: str | None) -> Outcome:
    """Project an exit state of the callee onto what its callers can see."""
    n = len(params)
    conds = tuple((i, st.conds[p]) for i, p in enumerate(params) if p in st.conds and st.env.get(p) == -(i + 1))
    ret_value = st.env.get(RETURN_KEY)
    returned = tuple(o for o in _objects(ret_value))

    def owner(hs: HState) -> OwnerDesc:
        return describe_owner(hs.owner, st, returned, n, None)

    ps = tuple((i, st.heap[-(i + 1)], owner(st.heap[-(i + 1)])) for i in range(n) if -(i + 1) in st.heap)
    fs = tuple((attr, st.heap[obj], owner(st.heap[obj])) for attr, obj in sorted(fields.items()) if obj in st.heap)
    rebinds: list[tuple[str, ValueDesc]] = []
    if self_name is not None:
        prefix = f"{self_name}."
        for key, v in sorted(st.env.items(), key=lambda kv: kv[0]):
            if key.startswith(prefix):
                attr = key[len(prefix) :]
                if fields.get(attr) != v:
                    rebinds.append((attr, describe_value(v, st, fields, n)))
    ret = describe_value(ret_value, st, fields, n)
    return Outcome(conds, ps, fs, tuple(rebinds), ret)


RETURN_KEY = "<return>"
