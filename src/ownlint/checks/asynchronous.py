"""Asynchronous submissions (OWN404): memory an asynchronous call may still
read, and an owner of it that dies meanwhile.

The family keeps its own facts of objects (events.Findings.fact), from the
generic events alone:

- an owner of a kind the `[async]` section's `memory-owner-kinds` names
  (made by a call whose effects say `owner` of that kind) is `MEMORY`;
- a submission (a call whose effects hold a `keep-alive`:
  `q.submit_async(kernel, args)`) returns an event object at once (the
  engine gives it a new object): its fact `Submission` says where it was
  submitted and which submissions it waited for (its dependencies, and
  theirs); each memory owner found at the positions the submission keeps (a
  list or tuple there: its elements) is `InFlight`: the submissions that may
  still read it;
- waiting an event (a `wait-methods` method of it: `ev.wait()`) completes it
  and everything it waited for; a wait method of anything else (`q.wait()`),
  or a `wait-functions` function given anything but a literal list of known
  events, completes every submission; handing the arguments to a
  `keep-alive-methods` method (`q._submit_keep_args_alive(args, evs)`) ends
  their flight;
- a memory owner that escapes (`Escape`: stored, passed to a call that may
  keep it) is `ESCAPED`: something out of sight may hold it, so it is not
  known to die.

An owner in flight whose last local reference goes (`Death`: deleted,
rebound, remade by the next loop iteration while its name still holds it,
or with its frame at a `return` or at the end of the function) is OWN404.

Known limits: a submission is known by its call site, so in a loop,
waiting the latest event of a site counts as waiting the earlier ones, and
the event of one iteration may be taken for the next one's (this can only
lose findings). An explicit free or close of an owner in flight is not
followed. Waits are not tied to their queue: any `wait` on something that is
not a known event counts as waiting every submission (this can only lose
findings). An owner made inside the submission's arguments and never bound
to a name has no last reference that goes, so its death is not seen.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import libcst as cst

from ownlint.engine.effects import Adopt, KeepAlive, Owner
from ownlint.engine.events import CallPost, Checker, Death, Escape, Findings
from ownlint.engine.state import Step
from ownlint.engine.values import Obj, Seq, Val, objects_in


@dataclass(frozen=True, slots=True)
class Memory:
    """A memory owner, not in flight."""


@dataclass(frozen=True, slots=True)
class Escaped:
    """A memory owner something out of sight may hold: not known to die."""


@dataclass(frozen=True, slots=True)
class InFlight:
    """A memory owner that the submissions `events` (their event objects) may still read."""

    events: frozenset[Obj]


@dataclass(frozen=True, slots=True)
class Submission:
    """The event object of a submission made at `step`; waiting it waits `after` too."""

    step: Step
    after: frozenset[Obj]


MEMORY = Memory()
ESCAPED = Escaped()

_HOW = {"return": "returns", "end": "ends"}  # how a frame ends -> the finding's `how`


class AsyncChecker(Checker):
    @staticmethod
    def join_facts(a: Hashable, b: Hashable) -> Hashable | None:
        """Where paths merge: in flight on either, in flight of both's
        submissions; escaped on either, escaped; an event waited for what
        both waited for."""
        if type(a) is Escaped or type(b) is Escaped:
            return ESCAPED
        if type(a) is InFlight or type(b) is InFlight:
            events = frozenset[Obj]()
            for x in (a, b):
                if type(x) is InFlight:
                    events |= x.events
                elif type(x) is not Memory:
                    return None
            return InFlight(events)
        if type(a) is Submission and type(b) is Submission and a.step == b.step:
            return Submission(a.step, a.after & b.after)
        return None

    def on_call_post(self, e: CallPost, out: Findings) -> None:
        if e.model is not None:
            for entry in e.model.entries:
                for effect in entry.effects:
                    if type(effect) is KeepAlive:
                        self._submit(e, effect, out)
                    elif type(effect) is Owner or type(effect) is Adopt:
                        kind = effect.kind if isinstance(effect, Owner) else effect.owner_kind
                        if isinstance(e.result, Obj) and kind in out.models.asynchronous.memory_owner_kinds:
                            out.set_fact(e.result, MEMORY)
        spec = out.models.asynchronous
        if e.method and type(e.node.func) is cst.Attribute:
            name = e.node.func.attr.value
            if name in spec.wait_methods:
                events = [o for o in objects_in(e.receiver) if type(out.fact(o)) is Submission]
                _complete(out, events or None)
            elif name in spec.keep_alive_methods and e.args:
                for obj in objects_in(e.args[0][1]):
                    if type(out.fact(obj)) is InFlight:
                        out.set_fact(obj, MEMORY)
        elif e.callee in spec.wait_functions:
            first = e.args[0][1] if e.args else None
            items = first.items if type(first) is Seq else ()
            events = [x for x in items if isinstance(x, Obj) and type(out.fact(x)) is Submission]
            _complete(out, events if events and len(events) == len(items) else None)

    def on_escape(self, e: Escape, out: Findings) -> None:
        fact = out.fact(e.obj)
        if type(fact) is Memory or type(fact) is InFlight:
            out.set_fact(e.obj, ESCAPED)

    def on_death(self, e: Death, out: Findings) -> None:
        fact = out.fact(e.obj)
        if type(fact) is not InFlight or e.state.reported:
            return
        how = e.cause if e.cause != "frame end" else _HOW.get(e.frame)
        if how is None:
            return  # an exception leaves the function: not followed
        submitted = [s.step for s in (out.fact(x) for x in sorted(fact.events, key=repr)) if type(s) is Submission]
        out.report("OWN404", e.node, e.name, (("how", how),), tuple(submitted[:1]), obj=e.obj)

    def _submit(self, e: CallPost, keep: KeepAlive, out: Findings) -> None:
        """A submission: its event waits for its dependencies' events (and
        theirs); the memory owners at the positions it keeps are in flight."""
        kept: list[Val] = []
        deps: set[Obj] = set()
        position = 0
        for arg, value in e.args:
            if arg.keyword is None and not arg.star:
                is_kept, is_deps = position in keep.arguments, position == keep.dependencies
                position += 1
            else:
                word = arg.keyword.value if arg.keyword is not None else ""
                is_kept, is_deps = word in keep.argument_keywords, word in keep.dependency_keywords
            if is_kept:
                kept.append(value)
            elif is_deps:
                deps.update(o for o in objects_in(value) if type(out.fact(o)) is Submission)
        after = set(deps)
        for d in deps:
            fact = out.fact(d)
            assert type(fact) is Submission
            after |= fact.after
        event = e.result
        if not isinstance(event, Obj):
            return
        out.set_fact(event, Submission(out.step(e.node, "submitted here; it may still run"), frozenset(after)))
        for value in kept:
            for obj in objects_in(value):
                fact = out.fact(obj)
                if obj.on_entry:
                    continue
                if type(fact) is Memory:
                    out.set_fact(obj, InFlight(frozenset({event})))
                elif type(fact) is InFlight:
                    out.set_fact(obj, InFlight(fact.events | {event}))


def _complete(out: Findings, events: list[Obj] | None) -> None:
    """The submissions `events` (None: every one) and those they waited for are done."""
    done: set[Obj] = set()
    for event in events or ():
        done.add(event)
        fact = out.fact(event)
        if type(fact) is Submission:
            done |= fact.after
    for obj, fact in list(out.facts()):
        if type(fact) is InFlight and (events is None or fact.events & done):
            left = frozenset() if events is None else fact.events - done
            out.set_fact(obj, InFlight(left) if left else MEMORY)
