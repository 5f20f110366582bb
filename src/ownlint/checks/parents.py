"""Children that die with their parent (OWN203): a handle a model says
belongs to another (`parent`: memory, a stream or a module made in a
context, a function got from a module) ends when that parent is destroyed,
and using it afterwards is a use after free, with the parent's destroy in
the story.

The family keeps its own facts of objects (events.Findings.fact), from the
generic events alone:

- a call with a `current` effect makes a handle the current one of the
  thread (`cuCtxCreate`, `cuCtxSetCurrent(ctx)`); a pop forgets which is;
- a call with a `parent` effect records the parents of what it makes: the
  handle at the parent argument, or (`parent = "current"`) the current one
  on this path, if the path knows it;
- a release of a parent ends its children, and theirs (a function of a
  module of a context); a use of an ended child is OWN203.

A handle made by a counted creator (a device's primary context, which the
runtime API and other code may hold too) ends no children when this code
releases it.

Known limits: the current handle is known only where this function (or
the path up to here) made it current; one a caller made current is not
followed, nor a parent or a child kept in a field across methods, nor a
failed destroy (its status is not tested here). A release of an ended
child is not reported (whether a second free of what its parent freed is a
double free is left open).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field, replace

import libcst as cst

from ownlint.engine.events import CallPost, Checker, Findings, Release, Replayed, Use, inside, via
from ownlint.engine.modelling.effects import Current, Element, Out, ParentOf, Result
from ownlint.engine.values.state import HState, Step
from ownlint.engine.values.values import Obj, Seq, Val, objects_in


@dataclass(frozen=True, slots=True)
class Family:
    """What this family knows of a handle: whether it is the current one,
    the handles it belongs to, and where its parent's destroy ended it."""

    parents: frozenset[Obj] = frozenset()
    current: bool = False
    ended: Step | None = field(default=None, compare=False, hash=False)
    ended_here: bool = False  # compared: an ended child is not a live one
    released: bool = True  # its parent's destroy releases it too (else it must still be released)
    shared: bool = False  # made by a counted creator (a primary context): others may hold it still


class ParentsChecker(Checker):
    @staticmethod
    def join_facts(a: Hashable, b: Hashable) -> Hashable | None:
        """Where paths merge: the parents of either, current on both, ended on both."""
        if type(a) is not Family or type(b) is not Family:
            return None
        ended = a.ended_here and b.ended_here
        released = a.released and b.released
        current = a.current and b.current
        return Family(a.parents | b.parents, current, a.ended if ended else None, ended, released, a.shared or b.shared)

    def on_call_post(self, e: CallPost, out: Findings) -> None:
        if e.model is None:
            return
        if e.made and any(c.counted for c in e.model.creates):
            for obj in e.made:
                fact = out.fact(obj)
                out.set_fact(obj, replace(fact if type(fact) is Family else Family(), shared=True))
        for entry in e.model.entries:
            for effect in entry.effects:
                if type(effect) is Current:
                    _make_current(e, effect, out)
                elif type(effect) is ParentOf:
                    _adopt_children(e, effect, out)

    def on_release(self, e: Release, out: Findings) -> None:
        """A parent's destroy ends its children, and their children (not a
        release of a shared handle: others may hold it still)."""
        own = out.fact(e.obj)
        if type(own) is Family and own.shared:
            return
        ended = {e.obj}
        facts = [(o, f) for o, f in out.facts() if isinstance(f, Family)]
        step = out.step(e.node, f"{_text(e.spelled)}, which it belongs to, destroyed here")
        grew = True
        while grew:
            grew = False
            for obj, child in facts:
                if obj not in ended and child.parents & ended:
                    ended.add(obj)
                    grew = True
                    if not child.ended_here:
                        out.set_fact(obj, replace(child, ended=step, ended_here=True))
        fact = out.fact(e.obj)
        if type(fact) is Family and fact.current:
            out.set_fact(e.obj, replace(fact, current=False))

    def on_replayed(self, e: Replayed, out: Findings) -> None:
        """What a project function left: a handle it made (kept in a field,
        returned) belongs to the caller's objects its parents were (the
        callee's parameters and fields, as the caller passed them); a
        parameter it made current is current here."""
        handed = e.which == "return" or e.which.startswith("field")
        fact = out.fact(e.obj) if handed else out.fact_in(e.facts)
        if type(fact) is not Family:
            return
        parents = set[Obj]()
        for parent in fact.parents:
            mine = e.caller(parent) if e.caller is not None and parent.on_entry else parent
            if isinstance(mine, Obj):
                parents.add(mine)
        if handed:
            out.set_fact(e.obj, replace(fact, parents=frozenset(parents), current=False))
        elif fact.current:
            for obj, other in list(out.facts()):
                if isinstance(other, Family) and other.current and obj != e.obj:
                    out.set_fact(obj, replace(other, current=False))
            mine_fact = out.fact(e.obj)
            out.set_fact(e.obj, replace(mine_fact if type(mine_fact) is Family else Family(), current=True))

    def on_use(self, e: Use, out: Findings) -> None:
        fact = out.fact(e.obj)
        if type(fact) is not Family or not fact.ended_here or fact.ended is None or e.state.reported:
            return
        story = (fact.ended, *inside(e, "used here"))
        out.report("OWN203", e.node, e.spelled, (*via(e), ("parent", "destroyed")), story, obj=e.obj)


_KEY = f"{__name__}:ParentsChecker"  # events.key_of(ParentsChecker())


def ended_with_parent(state: HState) -> bool:
    """Whether this family found the handle ended by its parent's destroy on
    the path `state` is of (for the leak family: such a handle is not lost)."""
    fact = next((f for k, f in state.facts if k == _KEY), None)
    return type(fact) is Family and fact.ended_here and fact.released


def _text(spelled: object) -> str:
    """How the destroyed parent is spelled: a name or a dotted attribute."""
    parts: list[str] = []
    while type(spelled) is cst.Attribute:
        parts.append(spelled.attr.value)
        spelled = spelled.value
    if type(spelled) is cst.Name:
        spelled = ".".join([spelled.value, *reversed(parts)])
    return f"`{spelled}`" if isinstance(spelled, str) else "its parent"


def _make_current(e: CallPost, effect: Current, out: Findings) -> None:
    """`effect.arg`'s handle (or what the call made) is current; no other is."""
    made: list[Obj] = []
    if effect.made:
        made = list(e.made)
    elif effect.arg is not None:
        positional = [v for a, v in e.args if a.keyword is None and not a.star]
        if -len(positional) <= effect.arg < len(positional):
            made = [o for o in objects_in(positional[effect.arg])]
    for obj, fact in list(out.facts()):
        if type(fact) is Family and fact.current and obj not in made:
            out.set_fact(obj, replace(fact, current=False))
    for obj in made[:1]:
        fact = out.fact(obj)
        out.set_fact(obj, replace(fact if type(fact) is Family else Family(), current=True))


def _adopt_children(e: CallPost, effect: ParentOf, out: Findings) -> None:
    """What the call made belongs to the parent the effect names."""
    parent: Obj | None = None
    if effect.parent is None:
        parent = next((o for o, f in out.facts() if type(f) is Family and f.current), None)
    else:
        positional = [v for a, v in e.args if a.keyword is None and not a.star]
        if -len(positional) <= effect.parent < len(positional):
            value = positional[effect.parent]
            parent = value if isinstance(value, Obj) else None
    if parent is None:
        return
    for child in _children(e, effect):
        if child == parent:
            continue
        fact = out.fact(child)
        base = fact if type(fact) is Family else Family()
        out.set_fact(child, replace(base, parents=base.parents | {parent}, released=base.released and effect.releases))


def _children(e: CallPost, effect: ParentOf) -> list[Obj]:
    """The handles the call made at the effect's place (an out-parameter's: what it made)."""
    at = effect.child
    value: Val = None
    if type(at) is Element:
        value = e.result.items[at.index] if type(e.result) is Seq and at.index < len(e.result.items) else None
    elif type(at) is Result:
        value = e.result
    found = [o for o in objects_in(value) if o in e.made]
    if not found and (type(at) is Out or type(at) is Result):
        found = list(e.made)
    return found
