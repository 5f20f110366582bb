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
no finding is invented. A call made with more than
`whole_program.MAX_CALL_DEPTH` (16) analyses under way, to a helper not
analysed yet, is taken the same way: a chain of 100 helpers costs their
effects past that depth, never the file.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ownlint.engine.values import linear
from ownlint.engine.values.memvalues import is_buffer_tag
from ownlint.engine.values.state import OWNER, OWNER_DEAD, HState, PathState, Step
from ownlint.engine.values.values import Addr, Const, Field, Instance, Lent, Lin, Obj, Param, Seq, Val

if TYPE_CHECKING:
    from ownlint.engine.modelling.model_types import Borrow


def _objects(v: Val) -> list[Obj]:
    if isinstance(v, Obj):
        return [v]
    if type(v) is Seq:
        return [o for x in v.items for o in _objects(x)]
    return []


# Where a value the callee hands back came from (None: nothing known)


@dataclass(frozen=True, slots=True)
class FromParam:
    """The caller's `index`-th argument (whose owner, for an owner description)."""

    index: int


@dataclass(frozen=True, slots=True)
class FromField:
    """The caller's `self.<name>` (for `self.method()` calls)."""

    name: str


@dataclass(frozen=True, slots=True)
class Fresh:
    """An object made inside the callee, in that state, owned as `owner` says;
    `made_by`: the callee that made it (qualified), where a model's creator
    did, so that what the models give receivers it made (`receiver-of`)
    applies to it in the caller too (`mr = make_resource(); mr.allocate(n)`)."""

    state: HState
    owner: OwnerDesc
    made_by: str | None = None


@dataclass(frozen=True, slots=True)
class Derived:
    """A value over the callee's parameters (an address inside parameter i's
    buffer: `Addr(Param(i), form)`), that the caller substitutes its arguments into."""

    value: Val


@dataclass(frozen=True, slots=True)
class InField:
    """An address inside the buffer the callee left in `self.<name>`
    (`self.base = addressof(from_buffer(self.buf))` next to `self.buf = mmap(...)`):
    the caller takes it inside what its object's attribute holds after the call."""

    name: str
    offset: linear.Lin | None


@dataclass(frozen=True, slots=True)
class Lend:
    """A handle the callee borrowed (by `borrow`) from the
    caller's `source` (a borrow from a parameter or a field): the caller
    borrows from its own object, which says whose handle it is."""

    source: FromParam | FromField
    borrow: Borrow


@dataclass(frozen=True, slots=True)
class NewInstance:
    """An object of a project class the callee built (`self.prior =
    Pipeline(...)`, `return Pipeline(...)`): the caller gets an object of
    that class, with the attributes the callee left in it."""

    cls: str
    attrs: tuple[tuple[str, ValueDesc], ...]


@dataclass(frozen=True, slots=True)
class Known:
    """A constant the callee left (`self.owns = False`)."""

    value: Const


# Whom a handle the callee transferred, kept or borrowed belongs to afterwards
# (None, or `Alive()`: an owner the caller cannot see, which may be alive)


@dataclass(frozen=True, slots=True)
class Returned:
    """The object the callee returns."""


@dataclass(frozen=True, slots=True)
class Dead:
    """An owner local to the callee, dead once it returns (its story, and what
    kind of owner it is: "queue", "buffer")."""

    story: tuple[Step, ...]
    kind: str


@dataclass(frozen=True, slots=True)
class Alive:
    """An owner the caller cannot see: it may be alive."""


ValueDesc = None | FromParam | FromField | Fresh | Derived | InField | Lend | NewInstance | Known
OwnerDesc = None | Returned | FromParam | Dead | Alive


@dataclass(frozen=True, slots=True)
class Outcome:
    conds: tuple[tuple[int, bool], ...]  # parameter index -> assumed truthiness
    params: tuple[tuple[int, HState, OwnerDesc], ...]  # parameter index -> its final typestate
    fields: tuple[tuple[str, HState, OwnerDesc], ...]  # self.x (as read on entry) -> its final typestate
    rebinds: tuple[tuple[str, ValueDesc], ...]  # self.x -> what the callee left in it
    ret: ValueDesc
    # a parameter bound to an object of a project class (`buf: HostBuffer`) and
    # followed to the exit (never forgotten, no attribute rebound): parameter
    # index -> buf.x (as read on entry) -> its final typestate
    param_fields: tuple[tuple[int, tuple[tuple[str, HState, OwnerDesc], ...]], ...] = ()
    # self.x (or self.x.y) as read on entry -> assumed truthiness (`if self.owns:`)
    field_conds: tuple[tuple[str, bool], ...] = ()


@dataclass(frozen=True, slots=True)
class Summary:
    name: str  # for messages: `release`, `Arena.release`
    unit: int
    params: tuple[str, ...]
    defaults: tuple[tuple[int, object], ...]  # parameter index -> literal default value
    is_method: bool  # the first parameter is `self`
    outcomes: tuple[Outcome, ...]
    # a `@contextmanager` generator: its outcomes are its states at the `yield` (what it
    # yields returned), and this is what the code after the `yield` does to the value
    # yielded, on every normal exit (None: nothing known), replayed where a `with` ends
    resumed: HState | None = None
    is_property: bool = False  # a method decorated `@property`: reading the attribute calls it


EMPTY_OUTCOME = Outcome((), (), (), (), None)


def describe_value(
    v: Val,
    st: PathState,
    fields: dict[str, Obj],
    nparams: int,
    left: dict[Obj, str] | None = None,
    depth: int = 0,
    constants: bool = True,
    creators: Mapping[Obj, str] | None = None,
) -> ValueDesc:
    """`left`: the objects the callee leaves in its `self.x` (object -> x);
    `constants`: whether a constant is described (`Known`) or left unknown;
    `creators`: the callee that made each object a model's creator made."""
    if type(v) is Const:
        # a constant left in an attribute (`self.owns = False`) decides the caller's
        # later tests of it; a returned one is not kept: helpers that return None on one
        # path and a value on another would fork every caller for nothing
        return Known(v) if constants else None
    if type(v) is Instance and v.number >= 0:
        if depth >= MAX_DEPTH:
            return None
        prefix = f"{v.key}."
        attrs = sorted((k[len(prefix) :], x) for k, x in st.env.items() if k.startswith(prefix))
        return NewInstance(
            v.cls,
            tuple(
                (a, describe_value(x, st, fields, nparams, left, depth + 1, creators=creators))
                for a, x in attrs
                if "." not in a
            ),
        )
    if isinstance(v, Obj):
        if type(v) is Param and v.index < nparams:
            return FromParam(v.index)
        if type(v) is Field:  # a parameter's attribute (not in `fields`): not followed
            return FromField(v.name) if fields.get(v.name) is v else None
        hs = st.heap.get(v)
        if hs is not None:
            if hs.kind == OWNER:
                # the caller holds the only reference now; an owner made with keep
                # keeps its link to the handle it adopted when that is the caller's
                kept = hs.owner if type(hs.owner) is Param and hs.owner.index < nparams else None
                hs = hs.but(escaped=False, owner=kept)
            made_by = creators.get(v) if creators is not None else None
            return Fresh(hs, describe_owner(hs.owner, st, (), nparams, None), made_by)
    if type(v) is Addr and type(v.buffer) is Param and v.buffer.index < nparams:
        return Derived(v)
    if type(v) is Addr and left and isinstance(v.buffer, Obj) and v.buffer in left:
        return InField(left[v.buffer], v.offset)
    if type(v) is Lin and all(name == linear.P or _is_param(name, nparams) for m, _ in v.form for name in m):
        return Derived(v)  # a linear value over the page size and the parameters
    if type(v) is Lent:
        source = describe_value(v.owner, st, fields, nparams)
        if type(source) is FromParam or type(source) is FromField:
            return Lend(source, v.borrow)
    return None


def describe_owner(
    owner: Obj | None, st: PathState, returned: tuple[Obj, ...], nparams: int, end: Step | None
) -> OwnerDesc:
    if owner is None:
        return None
    if owner in returned:
        return Returned()
    if type(owner) is Param and owner.index < nparams:
        return FromParam(owner.index)
    hs = st.heap.get(owner)
    if hs is None:
        return Alive()
    if hs.kind == OWNER_DEAD:
        return Dead(hs.story, _kind(hs.tag))
    if hs.kind == OWNER and not hs.escaped and not owner.on_entry:
        return Dead(hs.story, _kind(hs.tag))  # a local owner: it dies when the callee returns
    return Alive()


# how deep objects built inside objects are handed back (`NewInstance`)
MAX_DEPTH = 2


def _is_param(symbol: str, nparams: int) -> bool:
    index = Param.index_of(symbol)
    return index is not None and index < nparams


def _kind(tag: str) -> str:
    """An owner's kind, for messages: its tag, or "buffer" for host memory."""
    return "buffer" if is_buffer_tag(tag) else tag or "owner"


def outcome_of(
    st: PathState,
    params: list[str],
    fields: dict[str, Obj],
    self_name: str | None,
    creators: Mapping[Obj, str] | None = None,
) -> Outcome:
    """Project an exit state of the callee onto what its callers can see
    (`creators`: the callee that made each object a model's creator made)."""
    n = len(params)
    conds = tuple((i, st.conds[p]) for i, p in enumerate(params) if p in st.conds and st.env.get(p) is Param.of(i))
    ret_value = st.env.get(RETURN_KEY)
    returned = tuple(o for o in _objects(ret_value))

    def owner(hs: HState) -> OwnerDesc:
        return describe_owner(hs.owner, st, returned, n, None)

    on_entry = [(i, st.heap.get(Param.of(i))) for i in range(n)]
    ps = tuple((i, hs, owner(hs)) for i, hs in on_entry if hs is not None)
    fs = tuple((attr, st.heap[obj], owner(st.heap[obj])) for attr, obj in sorted(fields.items()) if obj in st.heap)
    rebinds: list[tuple[str, ValueDesc]] = []
    if self_name is not None:
        prefix = f"{self_name}."
        attrs = sorted((key[len(prefix) :], v) for key, v in st.env.items() if key.startswith(prefix))
        # the object a `self.x` held on entry (`FunctionAnalysis.entry_attribute`) is not
        # rebound; what the callee left in its attributes is, as `x.y`
        for attr, v in list(attrs):
            if type(v) is Instance and v.entry == attr:
                attrs.remove((attr, v))
                inner = f"{v.key}."
                attrs += sorted((f"{attr}.{k[len(inner) :]}", x) for k, x in st.env.items() if k.startswith(inner))
        left = {v: attr for attr, v in attrs if isinstance(v, Obj) and fields.get(attr) is not v}
        for attr, v in attrs:
            if fields.get(attr) is not v:
                rebinds.append((attr, describe_value(v, st, fields, n, left, creators=creators)))
    for key, v in st.env.items():
        if key[:3] == f"<{GLOBAL}" and ">." in key:  # an attribute of a module global's object
            attr = key[1:].replace(">", "", 1)
            if fields.get(attr) is not v:
                rebinds.append((attr, describe_value(v, st, fields, n, creators=creators)))
    ret = describe_value(ret_value, st, fields, n, constants=False, creators=creators)
    return Outcome(conds, ps, fs, tuple(rebinds), ret, _param_fields(st, params, owner), _field_conds(st))


def _field_conds(st: PathState) -> tuple[tuple[str, bool], ...]:
    """What the path assumed of the truthiness of `self.x` (and of `self.x.y`,
    where `self.x` held an object of a project class on entry) as they were
    on entry: the conditions `FunctionAnalysis.assume` keeps under
    `ENTRY` + the field's name, which no rebinding drops."""
    return tuple(sorted((k[1:], truth) for k, truth in st.conds.items() if k[:1] == ENTRY))


# the prefix of a condition on a field's value on entry (`_field_conds`)
ENTRY = "@"
# the prefix of the fields of an object a module global holds (`::g.x`: attribute x
# of what the global `g` holds, FunctionAnalysis.global_object), and of its env key (`<::g>`)
GLOBAL = "::"


def _param_fields(
    st: PathState, params: list[str], owner: Callable[[HState], OwnerDesc]
) -> tuple[tuple[int, tuple[tuple[str, HState, OwnerDesc], ...]], ...]:
    """What became of the attributes (as read on entry) of each parameter bound
    to an object of a project class that was followed to the exit."""
    out = []
    for i, p in enumerate(params):
        obj = st.env.get(p)
        if type(obj) is not Instance or obj.number != -1 - i or obj.key in st.env:
            continue  # no such object, the name rebound, or its attributes forgotten
        prefix = obj.key + "."
        attrs = [(k[len(prefix) :], v) for k, v in st.env.items() if k.startswith(prefix)]
        if all(v is Field.of(f"{p}.{a}") for a, v in attrs):
            out.append(
                (
                    i,
                    tuple(
                        (a, st.heap[v], owner(st.heap[v]))
                        for a, v in sorted(attrs, key=lambda t: t[0])
                        if isinstance(v, Obj) and v in st.heap
                    ),
                )
            )
    return tuple(out)


RETURN_KEY = "<return>"
