"""The two maps of a path state (state.py), each with what keeps its cost per
step independent of its size.

`Env` (name -> value) and `Heap` (object -> typestate) are dicts, so that
reading them costs what reading a dict costs, but every write goes through
them and keeps, at a cost bounded by the size of the values written (values
are bounded, domain.py), never by the size of the map:

- `digest`: the sum of the hashes of the items, so that a path state is
  keyed in a `StateSet` in constant time (a frozenset of the items cost one
  hash per name and object on every step);
- in `Env`, `holders`: for each object, the names whose value may refer to it
  (`values.refs`), so that forgetting an object a site makes again visits
  only the names that hold it;
- in `Heap`, `linkers`: for each object, the objects whose typestate refers
  to it (as owner, or in a span's address or size), and `mapped`, the
  objects with a span (`HState.span`);
- in both, `dropped`: the objects that may have become unreachable since the
  path state was last collected (a name let go of them, a link to them went,
  their typestate changed), so that collection looks at those only.

A copy costs a copy of the dicts (done by the interpreter, no Python code per
item). A map that a `StateSet` holds is never written again: path states are
copied before a step changes them (state.py).

Known limits: `digest` is a sum of hashes, so two different maps may share
it; that costs a comparison of the dicts (which `StateSet` does then), never
a wrong merge.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Generic, Protocol, TypeVar

from ownlint.engine.values.values import Obj, Val, refs

_MISSING: Any = object()
_NONE: frozenset[Any] = frozenset()


def _refs(v: Val) -> set[Obj]:
    out: set[Obj] = set()
    refs(v, out)
    return out


class Env(dict[str, Val]):
    """A path's names and their values (see the module docstring)."""

    __slots__ = ("digest", "dropped", "holders")

    def __init__(self, items: Mapping[str, Val] | None = None) -> None:
        super().__init__()
        self.digest = 0
        self.holders: dict[Obj, frozenset[str]] = {}
        self.dropped: set[Obj] = set()
        if items:
            for k, v in items.items():
                self[k] = v

    def copy(self) -> Env:
        out = Env.__new__(Env)
        dict.update(out, self)
        out.digest = self.digest
        out.holders = self.holders.copy()
        out.dropped = self.dropped.copy() if self.dropped else set()
        return out

    def _unlink(self, k: str, v: Val) -> None:
        self.digest -= hash((k, v))
        holders = self.holders
        for o in _refs(v):
            names = holders[o] - {k}
            if names:
                holders[o] = names
            else:
                del holders[o]
                self.dropped.add(o)

    def __setitem__(self, k: str, v: Val) -> None:
        old = dict.get(self, k, _MISSING)
        if old is not _MISSING:
            if old is v:
                return
            self._unlink(k, old)
        dict.__setitem__(self, k, v)
        self.digest += hash((k, v))
        holders = self.holders
        for o in _refs(v):
            holders[o] = holders.get(o, _NONE) | {k}

    def __delitem__(self, k: str) -> None:
        old = dict.pop(self, k)
        self._unlink(k, old)

    def pop(self, k: str, default: Any = _MISSING) -> Any:
        old = dict.pop(self, k, _MISSING)
        if old is _MISSING:
            if default is _MISSING:
                raise KeyError(k)
            return default
        self._unlink(k, old)
        return old

    def update(self, *args: Any, **kwargs: Any) -> None:
        for k, v in dict(*args, **kwargs).items():
            self[k] = v

    def setdefault(self, *args: Any) -> Any:
        raise TypeError("Env.setdefault is not supported")

    def popitem(self) -> tuple[str, Val]:
        raise TypeError("Env.popitem is not supported")

    def clear(self) -> None:
        raise TypeError("Env.clear is not supported")


class Typestate(Protocol):
    """What the heap reads of a typestate (state.HState) to keep its indices."""

    @property
    def owner(self) -> Obj | None: ...

    @property
    def span(self) -> Any: ...


S = TypeVar("S", bound=Typestate)


def _links(hs: Typestate) -> Iterable[Obj]:
    """The objects a typestate refers to, as collection follows them."""
    owner = hs.owner
    m = hs.span
    if m is None:
        return () if owner is None else (owner,)
    out = _refs(m.address)
    refs(m.size, out)
    if owner is not None:
        out.add(owner)
    return out


class Heap(dict[Obj, S], Generic[S]):
    """A path's objects and their typestates (state.HState; see the module
    docstring)."""

    __slots__ = ("digest", "dropped", "linkers", "mapped")

    def __init__(self, items: Mapping[Obj, S] | None = None) -> None:
        super().__init__()
        self.digest = 0
        self.linkers: dict[Obj, frozenset[Obj]] = {}
        self.mapped: frozenset[Obj] = _NONE
        self.dropped: set[Obj] = set()
        if items:
            for k, v in items.items():
                self[k] = v

    def copy(self) -> Heap[S]:
        out: Heap[S] = Heap.__new__(Heap)
        dict.update(out, self)
        out.digest = self.digest
        out.linkers = self.linkers.copy()
        out.mapped = self.mapped
        out.dropped = self.dropped.copy() if self.dropped else set()
        return out

    def _relink(self, o: Obj, old: S | None, new: S | None) -> None:
        before = () if old is None else _links(old)
        after = () if new is None else _links(new)
        if not before and not after:
            return
        linkers = self.linkers
        for t in before:
            if t not in after:
                rest = linkers[t] - {o}
                if rest:
                    linkers[t] = rest
                else:
                    del linkers[t]
                self.dropped.add(t)
        for t in after:
            if t not in before:
                linkers[t] = linkers.get(t, _NONE) | {o}

    def __setitem__(self, o: Obj, hs: S) -> None:
        old = dict.get(self, o)
        if old is hs:
            return
        if old is not None:
            self.digest -= hash((o, old))
        dict.__setitem__(self, o, hs)
        self.digest += hash((o, hs))
        if old is None or old.owner is not hs.owner or old.span is not hs.span:
            self._relink(o, old, hs)
        if (hs.span is not None) != (o in self.mapped):
            self.mapped = self.mapped ^ {o}
        self.dropped.add(o)

    def __delitem__(self, o: Obj) -> None:
        old = dict.pop(self, o)
        self._forget(o, old)

    def _forget(self, o: Obj, old: S) -> None:
        self.digest -= hash((o, old))
        self._relink(o, old, None)
        if o in self.mapped:
            self.mapped = self.mapped - {o}

    def pop(self, o: Obj, default: Any = _MISSING) -> Any:
        old = dict.pop(self, o, _MISSING)
        if old is _MISSING:
            if default is _MISSING:
                raise KeyError(o)
            return default
        self._forget(o, old)
        return old

    def update(self, *args: Any, **kwargs: Any) -> None:
        for k, v in dict(*args, **kwargs).items():
            self[k] = v

    def setdefault(self, *args: Any) -> Any:
        raise TypeError("Heap.setdefault is not supported")

    def popitem(self) -> tuple[Obj, S]:
        raise TypeError("Heap.popitem is not supported")

    def clear(self) -> None:
        raise TypeError("Heap.clear is not supported")
