"""The set of path states at a program point (state.py): how two are joined,
how a loop head widens them, and how their number is bounded.

Joining (ESP-style property simulation, Das et al. 2002): path states with
the same env and heap merge into one whose assumptions are those both share;
different typestates stay apart, so a finding always rests on one feasible
path. The number of path states at a point is bounded (`MAX_PATHS`); past it
the set is widened by forgetting what differs, which can only lose findings,
never invent one (keeping "freed on some path" would be unsound here: the
merge also forgets the conditions that made a later branch infeasible).
Where that forgot a name holding a tracked object, or merged typestates, it
is recorded in `widened`, and ownlint reports it for the function; states
that differed only in untracked values (a constant, a number) merge as the
value lattice joins them (domain.py), with no note.

At loop heads the solver widens (`StateSet.widen`) after a few visits:
new path states merge with those of the same typestates, so a value that
changes every round is forgotten instead of making a new state each time.
"""

from __future__ import annotations

from collections.abc import Iterator

from ownlint.engine import checker_facts
from ownlint.engine.values.state import LIVE, OWNER, HState, Keyed, PathState, StateKey
from ownlint.engine.values.store import Env, Heap
from ownlint.engine.values.values import Obj, Span, objects_in

MAX_PATHS = 128


class StateSet:
    """An immutable set of path states, keyed by (env, heap)."""

    __slots__ = ("states", "widened")

    def __init__(self, states: dict[StateKey, PathState] | None = None, widened: bool = False) -> None:
        self.states: dict[StateKey, PathState] = states or {}
        self.widened = widened

    @staticmethod
    def of(items: list[PathState]) -> StateSet:
        out = StateSet()
        for s in items:
            out._add(s)
        out._bound()
        return out

    def __iter__(self) -> Iterator[PathState]:
        return iter(self.states.values())

    def __len__(self) -> int:
        return len(self.states)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StateSet) or self.states.keys() != other.states.keys():
            return False
        return all(s.conds == other.states[k].conds for k, s in self.states.items())

    __hash__ = None  # type: ignore[assignment]

    def _add(self, s: PathState) -> None:
        k = s.key()
        old = self.states.get(k)
        if old is None:
            self.states[k] = s
        elif old.conds != s.conds:
            shared = {c: v for c, v in old.conds.items() if s.conds.get(c) == v}
            self.states[k] = PathState(old.env, old.heap, shared)

    def join(self, other: StateSet) -> StateSet:
        out = StateSet(dict(self.states), self.widened or other.widened)
        for s in other.states.values():
            out._add(s)
        out._bound()
        return out

    def merged(self) -> StateSet:
        """The set with the path states that have the same heap merged into
        one that keeps the names and assumptions they agree on (the analysis
        of code that can touch no tracked value, demand.py: what differs
        between its paths is values no model reads; what it does to its
        parameters and fields, the heap, stays apart per path)."""
        if len(self.states) <= 1:
            return self
        by_heap: dict[Keyed, list[PathState]] = {}
        for s in self.states.values():
            by_heap.setdefault(Keyed(s.heap), []).append(s)
        if len(by_heap) == len(self.states):
            return self
        out = StateSet(widened=self.widened)
        for group in by_heap.values():
            out._add(_merge_all(group))
        out._bound()
        return out

    def join_merged(self, other: StateSet) -> StateSet:
        """`join`, then `merged`."""
        return self.join(other).merged()

    def widen(self, newer: StateSet) -> StateSet:
        """`self` widened by `newer` (which holds `self`'s paths and more), at a
        loop head the solver has visited often enough (domain.py): each new
        path state merges with the states already there that have the same
        typestates, forgetting the names whose values differ (a counter, an
        accumulator, the latest of several objects), so the loop converges
        in a round or two. Paths with typestates of their own stay apart (the
        typestates are finite; MAX_PATHS bounds them)."""
        fresh = [s for k, s in newer.states.items() if k not in self.states]
        if not fresh:
            return newer
        by_heap: dict[object, list[PathState]] = {}
        for s in newer.states.values():
            by_heap.setdefault(_shape(s.heap), []).append(s)
        out = StateSet(widened=newer.widened)
        for group in by_heap.values():
            out._add(_merge_all(group) if len(group) > 1 else group[0])
        out._bound()
        return out

    def _bound(self) -> None:
        if len(self.states) <= MAX_PATHS:
            return
        # first forget names that differ between states with the same heap:
        # the ordinary join of values (two different values are unknown), which
        # counts as widening only where a forgotten name held a tracked object
        by_heap: dict[Keyed, list[PathState]] = {}
        for s in self.states.values():
            by_heap.setdefault(Keyed(s.heap), []).append(s)
        merged = []
        for group in by_heap.values():
            one = _merge_all(group)
            if len(group) > 1 and _forgot_tracked(group, one):
                self.widened = True
            merged.append(one)
        if len(merged) > MAX_PATHS:
            self.widened = True  # typestates merged: a handle's story lost
            merged = [_merge_all(merged)]
        self.states = {}
        for s in merged:
            self._add(s)


def _merge_all(group: list[PathState]) -> PathState:
    """One state that keeps only what every state in `group` agrees on. An
    owner that only a forgotten name held is marked escaped: the name may
    still hold it, so it must not die when another name lets go of it.

    It starts from a copy of the first state's maps and takes out what
    differs (the maps keep their indices up to date, store.py); values the
    states share (most: they were copied from one another) compare by
    identity first."""
    first = group[0]
    rest = group[1:]
    if not rest:
        return first
    env = first.env.copy()
    for k, v in first.env.items():
        for g in rest:
            x = g.env.get(k, _MISSING)
            if x is not v and not x == v:
                del env[k]
                break
    heap = first.heap.copy()
    for obj, state in first.heap.items():
        others = [g.heap.get(obj) for g in rest]
        if all(o is state or o == state for o in others):
            continue
        if state.span is not None and all(o is not None and _blank(o) == _blank(state) for o in others):
            heap[obj] = _joined_span(state, others)  # type: ignore[arg-type]
        elif (state.facts or any(x is not None and x.facts for x in others)) and all(
            x is not None and x.but(facts=()) == state.but(facts=()) for x in others
        ):
            facts = state.facts
            for x in others:
                facts = checker_facts.join(facts, x.facts)  # type: ignore[union-attr]
            heap[obj] = state.but(facts=facts)
        else:
            del heap[obj]
    conds = {k: v for k, v in first.conds.items() if all(g.conds.get(k) == v for g in rest)}
    for g in group:
        for k in g.env.keys() - env.keys():
            for o in objects_in(g.env[k]):
                hs = heap.get(o)
                if hs is not None and hs.kind == OWNER and not hs.escaped and not _held(o, env):
                    heap[o] = hs.but(escaped=True)
    return PathState(env, heap, conds)


def _held(obj: Obj, env: Env) -> bool:
    """Whether a name of `env` holds `obj` as a use reaches it (`objects_in`)."""
    return any(obj in objects_in(env[k]) for k in env.holders.get(obj, ()))


def _shape(heap: Heap[HState]) -> object:
    """The heap with the address and size of each span, and the checkers'
    facts, left out: where the widening at a loop head groups states (an
    offset that an accumulator or a loop variable moves each round is
    forgotten, as its name is; facts that change each round are joined by
    their checker). A heap with neither is its own shape (its key, in
    constant time)."""
    faceted = any(hs.facts for hs in heap.values())
    if not heap.mapped and not faceted:
        return Keyed(heap)
    return frozenset((o, _blank(hs.but(facts=()) if hs.facts else hs)) for o, hs in heap.items())


def _blank(hs: HState) -> HState:
    m = hs.span
    if m is None:
        return hs
    return hs.but(span=Span(None, None))


def _joined_span(first: HState, others: list[HState]) -> HState:
    """`first` with its span's address and size kept where all agree (the
    states have one shape: they differ at most there)."""
    m = first.span
    assert m is not None
    addr = m.address if all(o.span.address == m.address for o in others) else None  # type: ignore[union-attr]
    size = m.size if all(o.span.size == m.size for o in others) else None  # type: ignore[union-attr]
    return first.but(span=Span(addr, size))


def _forgot_tracked(group: list[PathState], merged: PathState) -> bool:
    """Whether merging `group` (states with one heap) lost the only name of an
    object with a typestate of its own: not live, or owned, or an owner, or a
    mapping (a parameter merely used so far, or an unknown value, has none,
    and an alias forgotten while another name still holds the object loses
    nothing of it: forgetting those is the ordinary join of values)."""
    heap = group[0].heap
    tracked = {o for o, hs in heap.items() if hs.kind != LIVE or hs.owner is not None or hs.span is not None or hs.tag}
    tracked = {o for o in tracked if not _held(o, merged.env)}
    if not tracked:
        return False
    env = merged.env
    return any(any(o in tracked for o in objects_in(g.env[k])) for g in group for k in g.env.keys() - env.keys())


_MISSING = object()
