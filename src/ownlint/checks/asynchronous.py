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
from dataclasses import dataclass, field

import libcst as cst

from ownlint.engine.events import Assume, CallPost, CallPre, Checker, Death, Escape, Findings, Release, Replayed
from ownlint.engine.modelling.effects import Adopt, KeepAlive, OnStream, Owner, Synchronize
from ownlint.engine.values.state import LIVE, Step
from ownlint.engine.values.values import Obj, Seq, Val, objects_in


@dataclass(frozen=True, slots=True)
class Memory:
    """A memory owner, not in flight."""


@dataclass(frozen=True, slots=True)
class Escaped:
    """A memory owner something out of sight may hold: not known to die."""


@dataclass(frozen=True, slots=True)
class InFlight:
    """Memory that the submissions `events` (their event objects, or the
    streams they were queued on) may still read: an owner, whose death frees
    it, or (`owner` False) a handle, freed only by a release."""

    events: frozenset[Obj]
    owner: bool = True
    queued: Step | None = field(default=None, compare=False, hash=False)  # where work on a stream took it


@dataclass(frozen=True, slots=True)
class Submission:
    """The event object of a submission made at `step`; waiting it waits `after` too."""

    step: Step
    after: frozenset[Obj]


@dataclass(frozen=True, slots=True)
class Synced:
    """A stream or event the analysis knew nothing of, synchronized here (a
    parameter): a caller learns that its work is done."""


MEMORY = Memory()
ESCAPED = Escaped()
SYNCED = Synced()

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
            owner = False
            for x in (a, b):
                if type(x) is InFlight:
                    events |= x.events
                    owner = owner or x.owner
                elif type(x) is Memory:
                    owner = True
                else:
                    return None
            queued = next((x.queued for x in (a, b) if type(x) is InFlight and x.queued is not None), None)
            return InFlight(events, owner, queued)
        if type(a) is Submission and type(b) is Submission and a.step == b.step:
            return Submission(a.step, a.after & b.after)
        return None

    def on_call_post(self, e: CallPost, out: Findings) -> None:
        if e.model is not None:
            for entry in e.model.entries:
                for effect in entry.effects:
                    if type(effect) is KeepAlive:
                        self._submit(e, effect, out)
                    elif type(effect) is OnStream:
                        _queue(e, effect, out)
                    elif type(effect) is Synchronize:
                        _synchronize(e, effect, out)
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

    def on_call_pre(self, e: CallPre, out: Findings) -> None:
        """A release ordered on a stream (`free_async(p, s)`) runs after the
        work queued on that stream, and after the events it was made to
        wait: memory only that work reads is no longer in flight for it."""
        model = e.model
        if model is None or model.release is None or model.release.key is not None:
            return
        on = next((x for en in model.entries for x in en.effects if type(x) is OnStream), None)
        if on is None:
            return
        positional = _positional(e.args)
        stream = _object_at(positional, on.stream)
        released = _at(positional, model.release.handle)
        if stream is None or released is None:
            return
        ordered = {stream} | _after(out, stream)
        for obj in objects_in(released):
            fact = out.fact(obj)
            if type(fact) is InFlight and fact.events <= ordered:
                out.set_fact(obj, MEMORY if fact.owner else None)

    def on_release(self, e: Release, out: Findings) -> None:
        """Memory released while work queued on a stream may still read it."""
        fact = out.fact(e.obj)
        if type(fact) is not InFlight or e.state.reported:
            return
        if fact.queued is not None:
            story: tuple[Step, ...] = (fact.queued,)
        else:
            submitted = [s.step for s in (out.fact(x) for x in sorted(fact.events, key=repr)) if type(s) is Submission]
            story = tuple(submitted[:1])
        out.report("OWN404", e.node, e.spelled, (("how", "released"),), story, obj=e.obj)

    def on_assume(self, e: Assume, out: Findings) -> None:
        """Where the path learns that a call queuing work on a stream
        failed, it queued nothing."""
        if e.failed is None:
            return
        for obj, fact in list(out.facts()):
            if type(fact) is InFlight and fact.queued is not None and id(fact.queued.node) == e.failed:
                out.set_fact(obj, MEMORY if fact.owner else None)

    def on_replayed(self, e: Replayed, out: Findings) -> None:
        """Memory a project function left in flight is in flight here on the
        caller's streams (the callee's parameters and fields, as the caller
        passed them); work on a stream of the callee's own is kept as it is."""
        fact = out.fact(e.obj) if e.which in ("return",) or e.which.startswith("field") else out.fact_in(e.facts)
        if type(fact) is Synced:
            _complete(out, None)  # the callee synchronized what the caller gave it: conservatively, everything
            return
        if type(fact) is not InFlight:
            return
        events = set[Obj]()
        for ev in fact.events:
            mine = e.caller(ev) if e.caller is not None and ev.on_entry else ev
            if isinstance(mine, Obj):
                events.add(mine)
        step = out.step(e.node, f"queued on a stream inside `{e.via.name}`; it may still run")
        out.set_fact(e.obj, InFlight(frozenset(events), fact.owner, step) if events else None)

    def on_escape(self, e: Escape, out: Findings) -> None:
        fact = out.fact(e.obj)
        if type(fact) is Memory or (type(fact) is InFlight and fact.owner):
            out.set_fact(e.obj, ESCAPED)

    def on_death(self, e: Death, out: Findings) -> None:
        fact = out.fact(e.obj)
        if type(fact) is not InFlight or not fact.owner or e.state.reported:
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
            if left:
                out.set_fact(obj, InFlight(left, fact.owner, fact.queued))
            else:
                out.set_fact(obj, MEMORY if fact.owner else None)


def _positional(args: tuple[tuple[cst.Arg, Val], ...]) -> list[Val]:
    return [v for a, v in args if a.keyword is None and not a.star]


def _at(positional: list[Val], i: int | None) -> Val:
    if i is None or not -len(positional) <= i < len(positional):
        return None
    return positional[i]


def _object_at(positional: list[Val], i: int | None) -> Obj | None:
    value = _at(positional, i)
    return value if isinstance(value, Obj) else None


def _after(out: Findings, obj: Obj) -> frozenset[Obj]:
    """What waiting `obj` (an event, a stream) waits too."""
    fact = out.fact(obj)
    return fact.after if type(fact) is Submission else frozenset()


def _queue(e: CallPost, on: OnStream, out: Findings) -> None:
    """Work queued on a stream (`copy_async(dst, src, n, s)`): the handles
    and memory owners it reads are in flight until the stream is
    synchronized (or an event recorded after it is waited); an event
    record marks the stream's work so far; a wait for an event orders the
    stream's later work (and releases) after it. A stream that is no
    object the analysis knows (the default stream `0`) is not followed."""
    positional = _positional(e.args)
    stream = _object_at(positional, on.stream)
    if stream is None:
        return
    marked = _object_at(positional, on.marks)
    if marked is not None:
        out.set_fact(marked, Submission(out.step(e.node, "recorded here"), frozenset({stream}) | _after(out, stream)))
    waited = _object_at(positional, on.waits)
    fact = out.fact(stream)
    if waited is not None:
        step = fact.step if type(fact) is Submission else out.step(e.node, "made to wait here")
        out.set_fact(stream, Submission(step, _after(out, stream) | {waited} | _after(out, waited)))
    if not on.reads:
        return
    step = out.step(e.node, "queued on a stream here; it may still run")
    if type(fact) is not Submission:
        out.set_fact(stream, Submission(step, _after(out, stream)))
    for i in on.reads:
        for obj in objects_in(_at(positional, i)):
            fact = out.fact(obj)
            if type(fact) is Memory:
                out.set_fact(obj, InFlight(frozenset({stream}), True, step))
            elif type(fact) is InFlight:
                out.set_fact(obj, InFlight(fact.events | {stream}, fact.owner, fact.queued or step))
            elif fact is None:
                state = out.state(obj)
                if state is None or state.kind == LIVE:
                    out.set_fact(obj, InFlight(frozenset({stream}), False, step))


def _synchronize(e: CallPost, sync: Synchronize, out: Findings) -> None:
    """A synchronization of a stream or an event known here completes its
    work; of anything else (a parameter, the device) every submission's."""
    known = None
    if sync.arg is not None:
        waited = _object_at(_positional(e.args), sync.arg)
        if waited is not None and type(out.fact(waited)) is Submission:
            known = [waited]
        elif waited is not None and waited.on_entry and out.fact(waited) is None:
            out.set_fact(waited, SYNCED)
    _complete(out, known)
