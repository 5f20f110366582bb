"""What checkers know of objects: their facts, carried by the engine.

A checker (events.Checker) records its own facts of an object on a path
through the `Findings` it is given (`fact`, `set_fact`): small immutable,
hashable values of the checker's own types. The engine keeps them in the
object's typestate (`HState.facts`, under the checker's key) and never reads
them: paths whose facts differ stay apart like paths whose typestates do,
and where the engine must merge paths (stateset.py) it joins the facts of
each checker with that checker's `join_facts` (none: a fact the paths do not
share is forgotten, which can only lose findings).

`CheckerOut` is the `Findings` one checker sees: the evaluator's `report`,
the facts under that checker's key (one object's, or all the path's), the
models and the story steps of the evaluator.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from typing import TYPE_CHECKING, Protocol

import libcst as cst

from ownlint.engine.evaluator.field_fates import FieldFate
from ownlint.engine.values.state import LIVE_STATE, HState, PathState, Step
from ownlint.engine.values.values import Obj

if TYPE_CHECKING:
    from ownlint.engine.modelling.model_types import ModelSet

Facts = tuple[tuple[str, str], ...]  # a finding's facts (events.Facts)

# checker key -> how two of its facts join (events.Checker.join_facts); one per process
JOINS: dict[str, Callable[[Hashable, Hashable], Hashable | None]] = {}


class Reporter(Protocol):
    """What a `CheckerOut` reports through, and the path it reads facts of (the evaluator)."""

    st: PathState
    models: ModelSet

    def result_object(self, node: cst.Call | cst.Subscript, label: str = "") -> Obj: ...
    def step(self, node: cst.CSTNode, label: str) -> Step: ...
    def held(self, obj: Obj) -> bool: ...
    def local(self, name: str) -> bool: ...
    def field_fate(self, key: str, elements: bool) -> FieldFate | None: ...
    def callees(self) -> frozenset[str]: ...
    @property
    def merged(self) -> bool: ...
    @property
    def page_size(self) -> int | None: ...

    def report(
        self,
        code: str,
        node: cst.CSTNode,
        handle: str | cst.CSTNode | None,
        facts: Facts = (),
        story: tuple[Step, ...] = (),
        obj: Obj | None = None,
        at: Step | None = None,
    ) -> None: ...


class CheckerOut:
    """The `events.Findings` of one checker on one path."""

    __slots__ = ("key", "to")

    def __init__(self, to: Reporter, key: str) -> None:
        self.to = to
        self.key = key

    def report(
        self,
        code: str,
        node: cst.CSTNode,
        handle: str | cst.CSTNode | None,
        facts: Facts = (),
        story: tuple[Step, ...] = (),
        obj: Obj | None = None,
        at: Step | None = None,
    ) -> None:
        self.to.report(code, node, handle, facts, story, obj, at)

    def fact(self, obj: Obj) -> Hashable | None:
        hs = self.to.st.heap.get(obj)
        return None if hs is None or not hs.facts else hs.fact(self.key)

    def state(self, obj: Obj) -> HState | None:
        return self.to.st.heap.get(obj)

    def set_fact(self, obj: Obj, fact: Hashable | None) -> None:
        heap = self.to.st.heap
        hs = heap.get(obj, LIVE_STATE)
        if hs.fact(self.key) != fact:
            heap[obj] = hs.with_fact(self.key, fact)

    def fact_in(self, facts: tuple[tuple[str, Hashable], ...]) -> Hashable | None:
        for key, fact in facts:
            if key == self.key:
                return fact
        return None

    def result_object(self, node: cst.Call | cst.Subscript, label: str = "") -> Obj:
        return self.to.result_object(node, label)

    def step(self, node: cst.CSTNode, label: str) -> Step:
        return self.to.step(node, label)

    @property
    def merged(self) -> bool:
        return self.to.merged

    def spans(self) -> Iterator[tuple[Obj, HState]]:
        heap = self.to.st.heap
        if heap.mapped:
            for obj, hs in list(heap.items()):
                if hs.span is not None:
                    yield obj, hs

    def held(self, obj: Obj) -> bool:
        return self.to.held(obj)

    def local(self, name: str) -> bool:
        return self.to.local(name)

    def field_fate(self, key: str, elements: bool = False) -> FieldFate | None:
        return self.to.field_fate(key, elements)

    def callees(self) -> frozenset[str]:
        return self.to.callees()

    @property
    def page_size(self) -> int | None:
        return self.to.page_size

    def facts(self) -> Iterator[tuple[Obj, Hashable]]:
        # read in one pass before the caller sees any (it may set facts as it goes)
        key = self.key
        found = []
        for obj, hs in self.to.st.heap.items():
            if hs.facts:
                fact = hs.fact(key)
                if fact is not None:
                    found.append((obj, fact))
        return iter(found)

    @property
    def models(self) -> ModelSet:
        return self.to.models


def join(a: tuple[tuple[str, Hashable], ...], b: tuple[tuple[str, Hashable], ...]) -> tuple[tuple[str, Hashable], ...]:
    """The facts of two merged paths' typestates of one object: each checker's
    facts joined by its `join_facts`; a fact only one path has is forgotten."""
    if a == b:
        return a
    theirs = dict(b)
    out = []
    for key, fact in a:
        other = theirs.get(key)
        if other is None:
            continue
        joined = fact if fact == other else JOINS.get(key, _forget)(fact, other)
        if joined is not None:
            out.append((key, joined))
    return tuple(out)


def _forget(a: Hashable, b: Hashable) -> Hashable | None:
    return None
