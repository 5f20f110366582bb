"""What the analysis tells checkers, and how checkers report.

The engine evaluates statements on each path and keeps the typestates
(state.py); it decides nothing about rules. At each point where a rule could
apply it publishes an event (the Clang analyzer's `checkPostCall`,
`checkBind`, `checkDeadSymbols`, ...): a use of a tracked object, its release,
a transfer, a return, a new external mapping, and so on, with the facts the
engine knows there (the object's typestate before the event, its owner's).
A checker (`Checker`, one per rule family, in `ownlint.checks`) subscribes
by overriding the `on_<event>` methods it needs, and reports through the
`Findings` it is given. The engine names no rule code: it learns the checkers
from its options (`EngineOptions.checkers`, their import names), given by
whoever runs it.

Typestate transitions stay in the engine and do not depend on what was
reported: a release of a handle that is not the application's to release
(already freed, transferred, borrowed, or kept by a live owner) changes
nothing; a second transfer or consumption changes nothing. An object a
finding was reported on is marked so (`HState.reported`), and no later
event about it on that path is published.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import libcst as cst

from ownlint.engine import checker_facts
from ownlint.engine.evaluator.field_fates import FieldFate
from ownlint.engine.values.state import HState, Step
from ownlint.engine.values.values import Obj, Val

if TYPE_CHECKING:
    from ownlint.engine.evaluator.typestate_base import RawViolation, Unit
    from ownlint.engine.modelling.model_types import Adopt, Borrow, CallModel, ModelSet
    from ownlint.engine.program.summaries import Summary
    from ownlint.engine.violations import Violation

Facts = tuple[tuple[str, str], ...]


class Findings(Protocol):
    """Where a checker reports (the analysis of one path, at one event)."""

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
        """A finding at `node`. With `obj`, its story is the object's own
        followed by `story`, and the object is marked reported on this path.
        With `at`, a step recorded earlier on this path (`step`), the finding
        is at that step's node, in the statement it was recorded in (the
        statement hint goes with it: a checker cannot name a node of another
        statement without one)."""

    def fact(self, obj: Obj) -> Hashable | None:
        """What this checker recorded of `obj` on this path (`set_fact`), or None."""

    def state(self, obj: Obj) -> HState | None:
        """The engine's typestate of `obj` on this path (its lifetime state, its
        owner, its story), or None: nothing happened to it yet."""

    def set_fact(self, obj: Obj, fact: Hashable | None) -> None:
        """Record `fact` of `obj` on this path (None: forget it). Facts are the
        checker's own immutable values; the engine carries them along the
        path, keeps paths with different facts apart and, where it must merge
        them, joins them with the checker's `join_facts`."""

    def fact_in(self, facts: tuple[tuple[str, Hashable], ...]) -> Hashable | None:
        """This checker's fact among the facts of several checkers (`Replayed.facts`), or None."""

    def facts(self) -> Iterator[tuple[Obj, Hashable]]:
        """The objects this checker recorded a fact of on this path, with the fact."""

    def result_object(self, node: cst.Call | cst.Subscript, label: str = "") -> Obj:
        """During `CallPost` of `node` (or `Indexed` of a subscript): its value
        as a fresh object of the site, nothing happened to it yet (its story:
        the step `label` there, if any), which the value becomes, so that
        facts can be kept of a value the engine knows nothing of (what an
        unknown callee returns). A loop that runs it again makes it again:
        names that held the previous one forget it."""

    def step(self, node: cst.CSTNode, label: str) -> Step:
        """A step of a finding's story: `label` at `node`, in the statement being run."""

    def spans(self) -> Iterator[tuple[Obj, HState]]:
        """The objects of this path that stand for an address range (what a
        map effect made: `HState.span`), with their typestates, in the order
        the path made them."""

    def held(self, obj: Obj) -> bool:
        """Whether a name of the running function (or a view of it that a name holds) still holds `obj`."""

    def local(self, name: str) -> bool:
        """Whether `name` is a local variable of the running function bound
        on this path (not a parameter): what it holds dies with the frame."""

    def field_fate(self, key: str, elements: bool = False) -> FieldFate | None:
        """For `key` an attribute of the running method's object (`self.x`):
        what the methods of its class, of its project bases and of the
        classes derived from it may do to what the attribute holds (with
        `elements`, a container of handles: field_fates.py), read off their
        syntax and the models. None for anything else."""

    def callees(self) -> frozenset[str]:
        """The qualified names of the callees of every call the running
        function's own body makes, on any path (a nested function's or
        class's calls are theirs)."""

    @property
    def page_size(self) -> int | None:
        """The page size the analysis assumes (None: the symbol `linear.P`)."""

    @property
    def models(self) -> ModelSet:
        """The models in use (what each rule family reads of its own sections)."""

    @property
    def merged(self) -> bool:
        """Whether the paths reaching this point were merged past the path
        budget (the function gets a budget note): names and facts one of
        them had may be forgotten here, so what the path no longer shows
        proves nothing (a handle no name holds any more may still be held)."""


# -- events about one tracked object -------------------------------------------


@dataclass(frozen=True, slots=True)
class Use:
    """`obj` is used (passed to a call, read through) at `node`."""

    obj: Obj
    state: HState
    owner: HState | None  # the typestate of the object that owns or lent it
    node: cst.CSTNode
    spelled: str | cst.CSTNode
    via: Summary | None  # the project function the use happened in, if not here
    inner: Step | None  # where, inside `via`


@dataclass(frozen=True, slots=True)
class Release:
    """`obj` is released (destroyed, freed) at `node`."""

    obj: Obj
    state: HState
    owner: HState | None
    owner_referenced: bool  # a local name still holds the owner
    node: cst.CSTNode
    spelled: str | cst.CSTNode
    via: Summary | None
    inner: Step | None


@dataclass(frozen=True, slots=True)
class Transfer:
    """An owner takes `obj` over (adoption with ownership transfer)."""

    obj: Obj
    state: HState
    node: cst.CSTNode
    spelled: str | cst.CSTNode
    via: Summary | None
    inner: Step | None


@dataclass(frozen=True, slots=True)
class Return:
    """`obj` is handed back to the caller, whose owner (if any) dies when the function returns."""

    obj: Obj
    state: HState
    owner_dies: bool
    node: cst.Return
    spelled: str | cst.CSTNode | None  # a node: its text, printed only if reported
    step: Step  # "its owner dies when the function returns"


# -- generic events: what any rule family may follow (the Clang analyzer's
# checkPostCall, checkBind, checkDeadSymbols, checkEndFunction, evalAssume) ---


@dataclass(frozen=True, slots=True)
class CallPost:
    """A call was evaluated, its model's effects applied: `callee` is its
    qualified name ("?" when unknown), `args` its arguments and their values,
    `result` its value, `receiver` the value of `x` in `x.m(...)` (None: no
    receiver, or nothing known of it), `model` what the models say of the
    callee (its `effects`, those the evaluator applies and those it leaves to
    checkers; for `x.m(...)` that no entry names by its callee, the entries
    naming the method `m` alone; None: nothing), `made` the handles those
    effects made (at its value, a tuple element, an out-parameter's
    variable), in the order made, `mapped` the handles its map effects made
    (each standing for an address range: `HState.span`), `method` whether
    it is `x.m(...)` with `x` a value (a module's function is none)."""

    node: cst.Call
    callee: str
    args: tuple[tuple[cst.Arg, Val], ...]
    result: Val
    receiver: Val = None
    model: CallModel | None = None
    made: tuple[Obj, ...] = ()
    method: bool = False  # a method of a receiver (`x.m(...)`, `x` no module)
    mapped: tuple[Obj, ...] = ()


@dataclass(frozen=True, slots=True)
class CallPre:
    """A call is about to run: its callee, arguments and receiver are
    evaluated, nothing of its model's effects (nor its arguments' use) has
    happened yet. The fields mean what `CallPost`'s do. Not published for a
    call whose first argument the models read as a variable passed by
    reference (`byref(x)`)."""

    node: cst.Call
    callee: str
    args: tuple[tuple[cst.Arg, Val], ...]
    receiver: Val = None
    model: CallModel | None = None
    method: bool = False


@dataclass(frozen=True, slots=True)
class Indexed:
    """A subscript `base[...]` (an index or a slice) was evaluated at `node`:
    `base` is the value subscripted, `value` the subscript's value. A checker
    may make the value an object to keep facts of (`Findings.result_object`)."""

    node: cst.Subscript
    base: Val
    value: Val


@dataclass(frozen=True, slots=True)
class Stored:
    """`obj` is kept where it outlives the running function: `where` is
    "attribute" (of any object), "global" (a global or nonlocal name),
    "container" (an item of, or added to, a container made outside the
    function), "return" or "yield"; `node` is the statement (or the
    `return`, the `yield`)."""

    obj: Obj
    state: HState | None
    node: cst.CSTNode
    where: str


@dataclass(frozen=True, slots=True)
class Borrowed:
    """A model's borrow (`borrow`) was applied to the object `owner`, whose
    typestate was `owner_state`, at `node` (`spelled`: how the owner is
    written there): `handle` is what it lent (the new borrowed handle, or the
    handle an owner made with keep holds; None: nothing, as for an owner of a
    kind the borrow lists as unsupported). Not published where the owner is a
    parameter the function knows nothing of: its callers lend it."""

    owner: Obj
    owner_state: HState
    borrow: Borrow
    node: cst.CSTNode
    spelled: str
    handle: Val


@dataclass(frozen=True, slots=True)
class Adopting:
    """A model's adopt effect (`adopt`) applies at the call `node`: an owner is
    about to be made of `handle` (what the call passes as the handle, or the
    handle field of the record it passes); `args` are the call's arguments
    and their values."""

    node: cst.Call
    adopt: Adopt
    handle: Val
    args: tuple[tuple[cst.Arg, Val], ...]


@dataclass(frozen=True, slots=True)
class Bind:
    """`key` (a local name, or `self.x`) is bound to `new` at `node` (`new` is
    None when it is deleted); it held `old`."""

    key: str
    old: Val
    new: Val
    node: cst.CSTNode


@dataclass(frozen=True, slots=True)
class Escape:
    """`obj` may now be held where this function loses sight of it: passed to
    a call, stored in an attribute, a global or a container out of sight, or
    forgotten by the value domain; `node` is the statement where."""

    obj: Obj
    state: HState | None
    node: cst.CSTNode


@dataclass(frozen=True, slots=True)
class Death:
    """The last local reference to `obj` goes away at `node` (`cause`: "deleted",
    "rebound", "frame end"; `name`: the name that held it). A loop that makes
    a handle again rebinds the name that held the previous one: "rebound".
    With the frame, `frame` says how it ended (`FrameEnd.how`: "return",
    "end", "raise"). Whether something out of sight still holds it is the
    checker's to know (`Escape`)."""

    obj: Obj
    state: HState
    node: cst.CSTNode
    cause: str
    name: str | None
    frame: str = ""


@dataclass(frozen=True, slots=True)
class FrameEnd:
    """The function ends on this path: `how` is "return" (`node`: the `return`
    statement, or the function where a `finally` body ran after it), "end"
    (it falls off its end; `node`: the last statement of the path, or where
    branches join at the end, the function's last statement) or "raise" (an
    exception leaves it; `node`: the function). On "return", `value` is
    the returned value (None: nothing known, or nothing returned)."""

    node: cst.CSTNode
    how: str
    value: Val = None


@dataclass(frozen=True, slots=True)
class WithExit:
    """The block of a `with` item ends: the value its context expression gave
    (`value`, before `__enter__`) is exited at `node` (the item); `spelled`
    is how the program spells it (the `as` target, else the expression: a
    node, whose text a checker prints only where it needs it)."""

    value: Val
    node: cst.WithItem
    spelled: cst.BaseExpression


@dataclass(frozen=True, slots=True)
class Assume:
    """The path takes the side `truth` of the test `node` (an `if`, `while`,
    `assert` or boolean operand). When the test is a name's truth value
    (`p`, `not p`), `obj` is the object the name holds and `truth` the truth
    assumed of it (`not p` taken true: False); else `obj` is None. When the
    test is of a status a modelled call returned (`if err != OK:`) and the
    path takes the side where that call failed, `failed` is the id() of the
    call's node (`id(CallPost.node)`): what checkers recorded at that call
    did not happen on this path."""

    node: cst.BaseExpression
    truth: bool
    obj: Obj | None
    state: HState | None
    failed: int | None = None


@dataclass(frozen=True, slots=True)
class Replayed:
    """A call at `node` of the project function `via` did to `obj` (the
    caller's object the callee's parameter or field held, spelled `spelled`
    here) what the callee's own analysis found: `facts` are the facts the
    checkers left of that parameter or field at the callee's exit (each reads
    its own: `Findings.fact_in`); `inner` is the callee's last step of it.

    Also published for an object the callee made and handed back (`which`:
    "return", or "field x" for what it left in `self.x`): `obj` is the
    caller's new object, which has those facts already. `caller` gives the
    caller's value of one of the callee's own values (its parameters and
    fields on entry: values.Param, values.Field), None where unknown."""

    obj: Obj
    facts: tuple[tuple[str, Hashable], ...]
    node: cst.CSTNode
    spelled: str | cst.CSTNode
    via: Summary
    inner: Step | None
    which: str = ""  # "parameter i", "field x", "return" (what the callee handed back)
    caller: Callable[[Val], Val] | None = None


# -- events about whole files -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ModuleLoaded:
    """A file was parsed and its names resolved (for checkers that walk syntax)."""

    unit: Unit
    models: ModelSet
    out: list[RawViolation]  # where such checkers put what they find


@dataclass(frozen=True, slots=True)
class Unparsable:
    """A file is not valid Python: where, and why."""

    path: str
    line: int
    column: int
    reason: str
    out: list[Violation]  # where checkers put what they find


def inside(e: Use | Release | Transfer, label: str) -> tuple[Step, ...]:
    """The step where an event happened inside the helper it came through
    (labelled "`label`, inside `helper`"), for the finding's story; none when
    it happened here."""
    if e.inner is None or e.via is None:
        return ()
    return (Step(e.inner.unit, e.inner.node, f"{label}, inside `{e.via.name}`", e.inner.stmt),)


def via(e: Use | Release | Transfer) -> Facts:
    """The fact `via`: the helper an event came through, if any."""
    return (("via", e.via.name),) if e.via is not None else ()


class Checker:
    """A rule family. Override the `on_<event>` methods it needs; the engine
    calls only those (a checker with no handler for an event costs it nothing).
    A checker keeps no state of its own between events: what it needs to know
    of a path it records as facts of objects (`Findings.fact`, `set_fact`),
    which the engine carries along the path (checker_facts.py)."""

    @staticmethod
    def join_facts(a: Hashable, b: Hashable) -> Hashable | None:
        """The fact of an object on two paths the engine merges, where they
        differ: by default none (forgotten, which can only lose findings)."""
        return None

    def on_use(self, e: Use, out: Findings) -> None: ...
    def on_release(self, e: Release, out: Findings) -> None: ...
    def on_transfer(self, e: Transfer, out: Findings) -> None: ...
    def on_return(self, e: Return, out: Findings) -> None: ...
    def on_call_pre(self, e: CallPre, out: Findings) -> None: ...
    def on_call_post(self, e: CallPost, out: Findings) -> None: ...
    def on_indexed(self, e: Indexed, out: Findings) -> None: ...
    def on_stored(self, e: Stored, out: Findings) -> None: ...
    def on_borrowed(self, e: Borrowed, out: Findings) -> None: ...
    def on_adopting(self, e: Adopting, out: Findings) -> None: ...
    def on_bind(self, e: Bind, out: Findings) -> None: ...
    def on_escape(self, e: Escape, out: Findings) -> None: ...
    def on_death(self, e: Death, out: Findings) -> None: ...
    def on_with_exit(self, e: WithExit, out: Findings) -> None: ...
    def on_frame_end(self, e: FrameEnd, out: Findings) -> None: ...
    def on_assume(self, e: Assume, out: Findings) -> None: ...
    def on_replayed(self, e: Replayed, out: Findings) -> None: ...
    def on_module_loaded(self, e: ModuleLoaded) -> None: ...
    def on_unparsable(self, e: Unparsable) -> None: ...


EVENTS = (
    "use",
    "release",
    "transfer",
    "return",
    "call_pre",
    "call_post",
    "indexed",
    "stored",
    "borrowed",
    "adopting",
    "bind",
    "escape",
    "death",
    "with_exit",
    "frame_end",
    "assume",
    "replayed",
    "module_loaded",
    "unparsable",
)


# for each event, the handlers of the checkers that override it (`Subscribers.handlers`)
Handlers = dict[str, tuple[Callable[..., None], ...]]
# for each path event, each overriding checker's handler with that checker's place in
# `Subscribers.outs` (`Subscribers.indexed`): called as `handler(event, outs[i])`
Bound = dict[str, tuple[tuple[Callable[..., None], int], ...]]

_WHOLE_FILE = ("module_loaded", "unparsable")  # events with no path: called as `handler(event)`


class Subscribers:
    """For each event, the handlers of the checkers that override it, in the checkers' order."""

    def __init__(self, checkers: tuple[Checker, ...]) -> None:
        self.checkers = checkers
        # each event's overriding checkers, with their places in `checkers`
        overriding = {
            name: [
                (i, c)
                for i, c in enumerate(checkers)
                if getattr(type(c), f"on_{name}") is not getattr(Checker, f"on_{name}")
            ]
            for name in EVENTS
        }
        self.handlers: Handlers = {
            name: tuple(getattr(c, f"on_{name}") for _, c in found) for name, found in overriding.items()
        }
        # each path event's handlers, each with the place of its checker (`outs`)
        self.indexed: Bound = {
            name: tuple((getattr(c, f"on_{name}"), i) for i, c in found)
            for name, found in overriding.items()
            if name not in _WHOLE_FILE
        }
        self._keys = tuple(key_of(c) for c in checkers)
        for c in checkers:
            if type(c).join_facts is not Checker.join_facts:
                checker_facts.JOINS[key_of(c)] = c.join_facts

    def __getitem__(self, event: str) -> tuple[Callable[..., None], ...]:
        return self.handlers[event]

    def outs(self, to: checker_facts.Reporter) -> list[checker_facts.CheckerOut]:
        """Each checker's findings on `to` (an evaluator), by the checker's
        place in `indexed`: a path event's handler is called as
        `handler(event, outs[i])`."""
        return [checker_facts.CheckerOut(to, key) for key in self._keys]


def key_of(checker: Checker) -> str:
    """The key of a checker's facts: its class, as "module:Class"."""
    return f"{type(checker).__module__}:{type(checker).__qualname__}"


_SUBSCRIBERS: dict[tuple[str, ...], Subscribers] = {}


def subscribers(specs: tuple[str, ...]) -> Subscribers:
    """The subscribers of the checkers named by `specs` ("package.module:Class",
    as `EngineOptions.checkers` gives them), imported and made once per process.
    Names rather than objects: the options stay plain data (the result cache's
    key), and nothing is imported until something is analysed."""
    found = _SUBSCRIBERS.get(specs)
    if found is None:
        found = _SUBSCRIBERS[specs] = Subscribers(tuple(_load(spec) for spec in specs))
    return found


def _load(spec: str) -> Checker:
    module, _, name = spec.partition(":")
    checker = getattr(importlib.import_module(module), name)()
    if not isinstance(checker, Checker):
        raise TypeError(f"{spec} is not an ownlint checker (events.Checker)")
    return checker
