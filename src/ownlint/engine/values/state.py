"""The typestate lattice: what a path knows about handles, names and conditions.

A program point holds a `StateSet`: a set of `PathState`s, each standing for
one or more paths that reach the point. A `PathState` has

- `env`: what each local name (and `self.x` inside a method) holds: an
  abstract object id, a container of values, a constant, or nothing known;
- `heap`: the typestate of each abstract object (`HState`), only for objects
  whose state is not the default "live, nothing happened";
- `conds`: what the path assumed about unchanged locals (`flag` is truthy,
  `p is None`), so branches on the same condition stay correlated.

How path states join, widen and are bounded: stateset.py. How a step
copies and keys them in constant time per name: store.py.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field

import libcst as cst

from ownlint.engine.values.store import Env, Heap
from ownlint.engine.values.values import Obj, Span, Val

# handle states
LIVE = "live"  # the application's (or nothing known)
FREED = "freed"  # destroyed or freed by the application
TRANSFERRED = "transferred"  # adopted by an owner with ownership transfer
KEPT = "kept"  # adopted by an owner with ownership keep
BORROWED = "borrowed"  # handed out by an owner (a model's borrow)
# owner states (objects that own handles: a model's adopt or owner)
OWNER = "owner"  # alive or possibly alive
OWNER_DEAD = "owner-dead"


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
    span: Span | None = None  # the address range a map effect made the handle stand for
    # a release registered to run when an object dies: "finalizer", or the
    # attribute (env key) a `__del__` frees; an explicit release of the handle
    # is then a second one (objects.py)
    at_death: str = ""
    # what checkers know of the object (events.Findings.fact): (checker key,
    # fact) pairs, sorted by key; the engine carries them without reading them
    facts: tuple[tuple[str, Hashable], ...] = ()
    # the hash, once asked (a heap hashes each state it holds into its digest: store.py)
    _hash: int | None = field(default=None, init=False, repr=False, compare=False, hash=False)

    def __hash__(self) -> int:
        known = self._hash
        if known is None:
            known = hash(_HASHED(self))  # the fields equality compares, as the dataclass's own hash
            object.__setattr__(self, "_hash", known)
        return known

    def __getstate__(self) -> tuple[object, ...]:
        # without the hash: another process hashes strings differently
        return (*(getattr(self, f) for f in _STATE_FIELDS), None)

    def __setstate__(self, state: tuple[object, ...]) -> None:
        for name, value in zip((*_STATE_FIELDS, "_hash"), state, strict=True):
            object.__setattr__(self, name, value)

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
            "span": self.span,
            "at_death": self.at_death,
            "facts": self.facts,
        }
        fields.update(changes)
        return HState(**fields)  # type: ignore[arg-type]

    def fact(self, key: str) -> Hashable | None:
        for k, v in self.facts:
            if k == key:
                return v
        return None

    def with_fact(self, key: str, fact: Hashable | None) -> HState:
        rest = tuple(kv for kv in self.facts if kv[0] != key)
        return self._copy(facts=rest if fact is None else tuple(sorted((*rest, (key, fact)), key=lambda kv: kv[0])))

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
            self.span,
            self.at_death,
            self.facts,
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
            self.span,
            self.at_death,
            self.facts,
        )


_STATE_FIELDS = tuple(f.name for f in dataclasses.fields(HState) if f.name != "_hash")  # what a pickle holds
_HASHED = operator.attrgetter(
    *(f.name for f in dataclasses.fields(HState) if (f.compare if f.hash is None else f.hash))
)

# the typestate of an object nothing has happened to (the heap leaves it out);
# one shared instance, HState being immutable
LIVE_STATE = HState(LIVE)


class Keyed:
    """A map of a path state as (part of) its key in a `StateSet`: hashed by
    the map's digest (store.py), in constant time; equal when the maps are."""

    __slots__ = ("code", "map")

    def __init__(self, m: Env | Heap[HState]) -> None:
        self.map = m
        self.code = hash(m.digest)

    def __hash__(self) -> int:
        return self.code

    def __eq__(self, other: object) -> bool:
        return type(other) is Keyed and self.code == other.code and self.map == other.map


# what identifies a path state in a StateSet: its env and heap
StateKey = tuple[Keyed, Keyed]


class PathState:
    """What one path knows (module docstring). A path state that a `StateSet`
    holds is not written again: a step works on a `copy`, which costs a copy
    of the dicts and no Python code per name (store.py)."""

    __slots__ = ("conds", "env", "heap", "last")

    def __init__(self, env: Mapping[str, Val], heap: Mapping[Obj, HState], conds: dict[str, bool]) -> None:
        self.env: Env = env if type(env) is Env else Env(env)
        self.heap: Heap[HState] = heap if type(heap) is Heap else Heap(heap)
        self.conds = conds
        self.last: Val = None  # the value of the last `eval` step (for `with ... as`)

    def copy(self) -> PathState:
        s = PathState(self.env.copy(), self.heap.copy(), dict(self.conds))
        s.last = self.last
        return s

    def key(self) -> StateKey:
        return (Keyed(self.env), Keyed(self.heap))

    def collected(self) -> PathState:
        """This state without the typestates of objects nothing can reach any
        more: no name holds them, they are no parameter or field, no live
        mapping, and no object kept holds them as its owner or in its mapping.
        Nothing can report on such an object again (an object made at the same
        site again starts afresh), but its typestate would keep this state
        apart from one without it: sequential loops that each make an object
        would double the paths with every loop.

        Only the objects the maps recorded as `dropped` since the last
        collection are looked at (store.py): every other object was reachable
        then and still is. An object is reachable when it is a root (a name
        holds it, it existed on entry, or it has a live mapping) or when an
        object that links to it is; removing one makes those it linked to
        candidates in turn."""
        env, heap = self.env, self.heap
        if not env.dropped and not heap.dropped:
            return self
        candidates = env.dropped | heap.dropped
        gone = [c for c in candidates if c in heap and not _reachable(c, env, heap)]
        if not gone:
            env.dropped.clear()
            heap.dropped.clear()
            return self
        out = PathState(env.copy(), heap.copy(), self.conds)
        out.last = self.last
        env, heap = out.env, out.heap
        env.dropped.clear()
        heap.dropped.clear()
        while gone:
            for o in gone:
                if o in heap:
                    del heap[o]
            candidates, heap.dropped = heap.dropped, set()
            gone = [c for c in candidates if c in heap and not _reachable(c, env, heap)]
        return out


def _reachable(obj: Obj, env: Env, heap: Heap[HState]) -> bool:
    """Whether a root reaches `obj` (an object of `heap`) through the links of
    typestates, searched backwards from `obj` (`PathState.collected`)."""
    todo = [obj]
    seen = {obj}
    linkers = heap.linkers
    while todo:
        o = todo.pop()
        if o in env.holders or o.on_entry or o.rooted:
            return True
        hs = heap.get(o)
        if hs is not None and hs.span is not None and hs.kind != FREED:
            return True
        for x in linkers.get(o, ()):
            if x not in seen and x in heap:
                seen.add(x)
                todo.append(x)
    return False
