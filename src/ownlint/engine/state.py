"""The typestate lattice: what a path knows about handles, names and conditions.

A program point holds a `StateSet`: a set of `PathState`s, each standing for
one or more paths that reach the point. A `PathState` has

- `env`: what each local name (and `self.x` inside a method) holds: an
  abstract object id, a container of values, a constant, or nothing known;
- `heap`: the typestate of each abstract object (`HState`), only for objects
  whose state is not the default "live, nothing happened";
- `conds`: what the path assumed about unchanged locals (`flag` is truthy,
  `p is None`), so branches on the same condition stay correlated.

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
from dataclasses import dataclass, field

import libcst as cst

from ownlint.engine.values import Mapping, Obj, Val, objects_in, refs

# handle states
LIVE = "live"  # the application's (or nothing known)
FREED = "freed"  # destroyed or freed by the application
TRANSFERRED = "transferred"  # adopted by an owner with ownership transfer
KEPT = "kept"  # adopted by an owner with ownership keep
BORROWED = "borrowed"  # handed out by an owner (get_native, addressof_ref)
CONSUMED = "consumed"  # a capsule a consumer has renamed
# owner states (SYCL objects, dpctl objects)
OWNER = "owner"  # alive or possibly alive
OWNER_DEAD = "owner-dead"

MAX_PATHS = 128


@dataclass(frozen=True, slots=True)
class Step:
    """One event of a handle's story, in file number `unit`."""

    unit: int
    node: cst.CSTNode
    label: str
    # the statement `node` is in, as far as the analysis knew (a hint for
    # positions.py; a wrong one costs time, never a wrong position)
    stmt: cst.CSTNode | None = field(default=None, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class HState:
    """An abstract object's typestate. The story does not take part in equality:
    two paths that agree on the state merge, keeping one story."""

    kind: str
    reported: bool = False
    story: tuple[Step, ...] = field(default=(), compare=False, hash=False)
    # for a parameter (or a `self.x` read on entry): the first thing the function
    # did to it, "use" or "free", which its callers replay (summaries.py)
    first: str | None = None
    first_step: Step | None = field(default=None, compare=False, hash=False)
    # for a handle: the object that adopted or lent it; for an owner made with
    # keep: the handle it adopted
    owner: Obj | None = None
    tag: str = ""  # an owner's kind ("buffer" ...); "keep" on a keep owner's handle link
    escaped: bool = False  # an owner some reference outside the locals may hold
    mapping: Mapping | None = None  # an external memory mapping: see memory.py
    prov: str = ""  # "explicit": made on an explicitly created context (what exports must not take)
    # an owner in flight: the asynchronous submissions (their event objects) that
    # may still read it, none of them known to be waited (asynchronous.py)
    inflight: frozenset[Obj] = frozenset()
    # an event object of a submission: the events it waited for (waiting it waits them)
    after: frozenset[Obj] = frozenset()
    # a release registered to run when an object dies: "finalizer", or the
    # attribute (env key) a `__del__` frees; an explicit release of the handle
    # is then a second one (objects.py)
    at_death: str = ""

    # dataclasses.replace costs about ten times a plain construction; these
    # run on every event of every path, so they construct directly
    def _copy(self, **changes: object) -> HState:
        fields = {
            "kind": self.kind,
            "reported": self.reported,
            "story": self.story,
            "first": self.first,
            "first_step": self.first_step,
            "owner": self.owner,
            "tag": self.tag,
            "escaped": self.escaped,
            "mapping": self.mapping,
            "prov": self.prov,
            "inflight": self.inflight,
            "after": self.after,
            "at_death": self.at_death,
        }
        fields.update(changes)
        return HState(**fields)  # type: ignore[arg-type]

    def but(self, **changes: object) -> HState:
        return self._copy(**changes)

    def with_step(self, kind: str, step: Step, **changes: object) -> HState:
        return self._copy(kind=kind, story=(*self.story, step), **changes)

    def mark_reported(self) -> HState:
        return HState(
            self.kind,
            True,
            self.story,
            self.first,
            self.first_step,
            self.owner,
            self.tag,
            self.escaped,
            self.mapping,
            self.prov,
            self.inflight,
            self.after,
            self.at_death,
        )

    def with_first(self, first: str, step: Step) -> HState:
        if self.first is not None:
            return self
        return HState(
            self.kind,
            self.reported,
            self.story,
            first,
            step,
            self.owner,
            self.tag,
            self.escaped,
            self.mapping,
            self.prov,
            self.inflight,
            self.after,
            self.at_death,
        )


# the typestate of an object nothing has happened to (the heap leaves it out);
# one shared instance, HState being immutable
LIVE_STATE = HState(LIVE)

# what identifies a path state in a StateSet: its env and heap, as sets of items
StateKey = tuple[frozenset[tuple[str, Val]], frozenset[tuple[Obj, HState]]]


class PathState:
    __slots__ = ("_key", "conds", "env", "heap", "last")

    def __init__(self, env: dict[str, Val], heap: dict[Obj, HState], conds: dict[str, bool]) -> None:
        self.env = env
        self.heap = heap
        self.conds = conds
        self.last: Val = None  # the value of the last `eval` step (for `with ... as`)
        self._key: StateKey | None = None

    def copy(self) -> PathState:
        s = PathState(dict(self.env), dict(self.heap), dict(self.conds))
        s.last = self.last
        return s

    def key(self) -> StateKey:
        if self._key is None:
            self._key = (frozenset(self.env.items()), frozenset(self.heap.items()))
        return self._key

    def touched(self) -> None:
        self._key = None

    def collected(self) -> PathState:
        """This state without the typestates of objects nothing can reach any
        more: no name holds them, they are no parameter or field, no live
        mapping, and no object kept holds them as its owner or in its mapping.
        Nothing can report on such an object again (an object made at the same
        site again starts afresh), but its typestate would keep this state
        apart from one without it: sequential loops that each make an object
        would double the paths with every loop."""
        heap = self.heap
        if not heap:
            return self
        keep: set[Obj] = set()
        for v in self.env.values():
            refs(v, keep)
        for o, hs in heap.items():
            if o.on_entry or (hs.mapping is not None and hs.kind != FREED):
                keep.add(o)
        if len(keep) >= len(heap) and all(o in keep for o in heap):
            return self
        todo = [o for o in keep if o in heap]
        while todo:
            hs = heap[todo.pop()]
            found: set[Obj] = set()
            if hs.owner is not None:
                found.add(hs.owner)
            if hs.mapping is not None:
                refs(hs.mapping.address, found)
                refs(hs.mapping.size, found)
            for o in found - keep:
                keep.add(o)
                if o in heap:
                    todo.append(o)
        if all(o in keep for o in heap):
            return self
        out = PathState(self.env, {o: hs for o, hs in heap.items() if o in keep}, self.conds)
        out.last = self.last
        return out


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
        by_heap: dict[frozenset[tuple[Obj, HState]], list[PathState]] = {}
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
        by_heap: dict[frozenset[tuple[Obj, HState]], list[PathState]] = {}
        for s in self.states.values():
            by_heap.setdefault(s.key()[1], []).append(s)
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
    still hold it, so it must not die when another name lets go of it."""
    first = group[0]
    env = {k: v for k, v in first.env.items() if all(g.env.get(k, _MISSING) == v for g in group[1:])}
    heap: dict[Obj, HState] = {}
    for obj, state in first.heap.items():
        others = [g.heap.get(obj) for g in group[1:]]
        if all(o == state for o in others):
            heap[obj] = state
        elif state.mapping is not None and all(o is not None and _blank(o) == _blank(state) for o in others):
            heap[obj] = _joined_mapping(state, others)  # type: ignore[arg-type]
    conds = {k: v for k, v in first.conds.items() if all(g.conds.get(k) == v for g in group[1:])}
    kept = {o for v in env.values() for o in objects_in(v)}
    for g in group:
        for k, v in g.env.items():
            if k in env:
                continue
            for o in objects_in(v):
                hs = heap.get(o)
                if o not in kept and hs is not None and hs.kind == OWNER and not hs.escaped:
                    heap[o] = hs.but(escaped=True)
    return PathState(env, heap, conds)


def _shape(heap: dict[Obj, HState]) -> frozenset[tuple[Obj, HState]]:
    """The heap with the address and size of each mapping left out: where the
    widening at a loop head groups states (an offset that an accumulator or a
    loop variable moves each round is forgotten, as its name is)."""
    return frozenset((o, _blank(hs)) for o, hs in heap.items())


def _blank(hs: HState) -> HState:
    m = hs.mapping
    if m is None:
        return hs
    return hs.but(mapping=Mapping(None, None, m.read_only_flag, m.address_checked, m.size_checked))


def _joined_mapping(first: HState, others: list[HState]) -> HState:
    """`first` with its mapping's address and size kept where all agree (the
    states have one shape: the rest of the mapping is the same)."""
    m = first.mapping
    assert m is not None
    addr = m.address if all(o.mapping.address == m.address for o in others) else None  # type: ignore[union-attr]
    size = m.size if all(o.mapping.size == m.size for o in others) else None  # type: ignore[union-attr]
    return first.but(mapping=Mapping(addr, size, m.read_only_flag, m.address_checked, m.size_checked))


def _forgot_tracked(group: list[PathState], merged: PathState) -> bool:
    """Whether merging `group` (states with one heap) lost the only name of an
    object with a typestate of its own: not live, or owned, or an owner, or a
    mapping (a parameter merely used so far, or an unknown value, has none,
    and an alias forgotten while another name still holds the object loses
    nothing of it: forgetting those is the ordinary join of values)."""
    heap = group[0].heap
    tracked = {
        o for o, hs in heap.items() if hs.kind != LIVE or hs.owner is not None or hs.mapping is not None or hs.tag
    }
    tracked -= {o for v in merged.env.values() for o in objects_in(v)}
    if not tracked:
        return False
    return any(
        k not in merged.env and any(o in tracked for o in objects_in(v)) for g in group for k, v in g.env.items()
    )


_MISSING = object()
