"""The abstract values a name can hold, and the identities of abstract objects.

A value (`Val`) is one of

| class | what it stands for |
|---|---|
| `None` | nothing known (the lattice's top) |
| `Obj` | an abstract object: a handle, an owner, a buffer (its typestate is in the heap) |
| `Const(x)` | a constant (`3`, `"keep"`, `True`, `None`) |
| `Lin(form)` | an integer as a linear form over the page size and unknowns (linear.py) |
| `OneOf(options)` | one of a few values (`a if c else b` between numbers) |
| `Sym(name)` | an imported name, qualified (`ze.ZE_RESULT_SUCCESS`) |
| `Flags(names)` | `A | B` of flag symbols |
| `Seq(items)` | a tuple or list literal |
| `Dict(items)` | a dict literal with constant keys |
| `Ref(key, value, how)` | `byref(x)` / `pointer(x)` / `addressof(x)`: the variable `key` itself, holding `value` |
| `Prop(name)` | a property object of an interop constructor (`property.buffer.use_host_ptr`) |
| `Addr(buffer, offset)` | an address inside a buffer object, at a linear offset (None: unknown) |
| `Off(base, offset)` | a parameter plus a linear offset over the parameters (`base + first * P`), or a method's `self.x` plus a linear offset, for summaries |
| `BufRef(buffer)` | a ctypes view of a buffer (`c_char.from_buffer(b)`) |
| `AIface(buffer, depth)` | `arr.__array_interface__`, indexed `depth` times |
| `Struct(type, fields)` | a ctypes descriptor and its fields, by value |
| `Status(call, effects, outcome, failed_if_true)` | the status a call returned (status.py) |
| `Lent(owner, borrow)` | a handle borrowed (a model's borrow) from a parameter or field whose typestate is unknown here, for summaries |

All are immutable and compare by value, except `Obj`. domain.py bounds them
(the lattice has finite height), and `join` is the one join: two different
values are unknown, except that `OneOf` keeps a few numbers apart.

Object identities (`Obj`) are typed keys: `Param(i)` (the function's i-th
parameter), `Field(name)` (`self.name` as read on entry), `Site(n)` (the
n-th object the function's analysis made, at a call or an assignment) and
`At(n, path)` (what an access path held when read). Each
identity is made once (parameters and fields are interned, sites by the
analysis that makes them), so objects compare and hash by identity: as fast
as the integers they used to be, without number ranges.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from ownlint.engine.values import linear

if TYPE_CHECKING:
    from ownlint.engine.modelling.model_types import Borrow


class Obj:
    """An abstract object's identity (compared by identity: each is made once)."""

    __slots__ = ()
    on_entry: ClassVar[bool] = False  # existed before the function ran (a parameter, a field)
    # reachable though no name holds it: a container element or a field an access path reads (`At`)
    rooted: ClassVar[bool] = False

    @property
    def symbol(self) -> str:
        """The name of the unknown integer this object holds, in linear forms (linear.py)."""
        return f"#{self!r}"


class Param(Obj):
    """The function's `index`-th parameter (the object it holds on entry)."""

    __slots__ = ("index",)
    on_entry = True
    _made: ClassVar[list[Param]] = []

    def __init__(self, index: int) -> None:
        self.index = index

    @classmethod
    def of(cls, index: int) -> Param:
        while len(cls._made) <= index:
            cls._made.append(cls(len(cls._made)))
        return cls._made[index]

    def __repr__(self) -> str:
        return f"Param({self.index})"

    @staticmethod
    def index_of(symbol: str) -> int | None:
        """The index of the parameter whose symbol (`Obj.symbol`) this is, or None."""
        if symbol.startswith("#Param(") and symbol.endswith(")"):
            return int(symbol[7:-1])
        return None


class Field(Obj):
    """`self.<name>` as read on entry to a method."""

    __slots__ = ("name",)
    on_entry = True
    _made: ClassVar[dict[str, Field]] = {}

    def __init__(self, name: str) -> None:
        self.name = name

    @classmethod
    def of(cls, name: str) -> Field:
        made = cls._made.get(name)
        if made is None:
            made = cls._made[name] = cls(name)
        return made

    def __repr__(self) -> str:
        return f"Field({self.name!r})"


class Site(Obj):
    """An object the analysis of one function made (numbered in the order it made them)."""

    __slots__ = ("number",)

    def __init__(self, number: int) -> None:
        self.number = number

    def __repr__(self) -> str:
        return f"Site({self.number})"


class Instance(Site):
    """An object of a project class that the function built (`x = C(...)`), or
    a parameter annotated with one: its attributes are the env keys
    `<key>.<attr>` (objects.py)."""

    __slots__ = ("cls", "entry", "key")

    def __init__(self, number: int, cls: str, entry: str = "") -> None:
        super().__init__(number)
        self.cls = cls  # the class, qualified as its construction spelled it
        self.key = f"<{cls.rpartition('.')[2]}@{number}>"
        # for the object a method's `self.<entry>` holds on entry (`field_instance`):
        # its attributes read on entry are the fields `<entry>.<attr>`
        self.entry = entry

    def __repr__(self) -> str:
        return f"Instance({self.number}, {self.cls!r})"


class At(Site):
    """What an access path (`bufs[0][1]`, `self.states[k].ptr`, `buf.handle`)
    held when the function read it, the same object at each read until the
    path may have changed (paths.py): reachable through the path, whether or
    not a name holds it."""

    __slots__ = ("text",)
    rooted = True

    def __init__(self, number: int, text: str) -> None:
        super().__init__(number)
        self.text = text

    def __repr__(self) -> str:
        return f"At({self.number}, {self.text!r})"


@dataclass(frozen=True, slots=True)
class Const:
    value: Any


@dataclass(frozen=True, slots=True)
class Lin:
    form: linear.Lin


@dataclass(frozen=True, slots=True)
class OneOf:
    options: tuple[Val, ...]


@dataclass(frozen=True, slots=True)
class Sym:
    name: str


@dataclass(frozen=True, slots=True)
class Flags:
    names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Seq:
    items: tuple[Val, ...]


@dataclass(frozen=True, slots=True)
class Dict:
    items: tuple[tuple[Any, Val], ...]  # (constant key, value)


@dataclass(frozen=True, slots=True)
class Ref:
    key: str | None  # the variable referred to (None: not a plain name)
    value: Val  # what it holds
    how: str = ""  # "byref", "pointer" (keeps its pointee alive), "addressof"


@dataclass(frozen=True, slots=True)
class Prop:
    name: str


@dataclass(frozen=True, slots=True)
class Addr:
    buffer: Val
    offset: linear.Lin | None  # None: somewhere in the buffer


@dataclass(frozen=True, slots=True)
class Off:
    """`base + offset` where `base` is a parameter and `offset` mentions parameters
    (their symbols), or `base` is a method's `self.x` (`Field`): a caller
    substitutes its arguments (its object's attributes) into both (substitution).
    For everything else it is `base` itself (pointer arithmetic derives from it)."""

    base: Obj
    offset: linear.Lin


@dataclass(frozen=True, slots=True)
class BufRef:
    buffer: Val


@dataclass(frozen=True, slots=True)
class AIface:
    buffer: Val
    depth: int


@dataclass(frozen=True, slots=True)
class Struct:
    type: str
    fields: tuple[tuple[str, Val], ...]  # sorted by name

    def get(self, name: str, default: Val = None) -> Val:
        for key, value in self.fields:
            if key == name:
                return value
        return default


@dataclass(frozen=True, slots=True)
class Span:
    """The address range a handle stands for (`HState.span`: the handle a
    call's map effect made, effects.py): its start and its length, as
    values (None: unknown)."""

    address: Val
    size: Val


@dataclass(frozen=True, slots=True)
class Status:
    """The status a modelled call returned (its model says which values mean
    success): what the call did to objects, `(object, state before, state
    after)`, undone where the path learns that it failed (status.py); the
    outcome once a test decided it (None: not known); and whether the value
    is true on failure (a status, `s != OK`) or on success (`s == OK`)."""

    call: int  # id() of the call
    effects: tuple[tuple[Obj, Any, Any], ...]  # HStates (state.py imports this module)
    outcome: bool | None = None  # True: succeeded
    failed_if_true: bool = True


@dataclass(frozen=True, slots=True)
class Lent:
    """A borrow from `owner` where `owner` is a parameter or a field of unknown
    typestate: whether the handle is the application's (made with keep) or
    the runtime's is the caller's to say, so the caller replays the borrow on
    its own object (typestate_replay). Here it is an unknown value."""

    owner: Obj
    borrow: Borrow


Val = (
    None
    | Obj
    | Const
    | Lin
    | OneOf
    | Sym
    | Flags
    | Seq
    | Dict
    | Ref
    | Prop
    | Addr
    | Off
    | BufRef
    | AIface
    | Struct
    | Status
    | Lent
)

# values that hold no object, whatever is inside them (a status's effects are history, not references)
LEAVES = (Const, Lin, Sym, Flags, Prop, Status)


def join(a: Val, b: Val) -> Val:
    """The least value above both: equal values stay, different ones are unknown
    (`OneOf` is made on purpose, by `a if c else b`: see domain.oneof)."""
    return a if a == b else None


def objects_in(v: Val) -> list[Obj]:
    """The abstract objects a value holds (directly, in a container, or by reference)."""
    if v is None:
        return []
    if isinstance(v, Obj):
        return [v]
    if type(v) is Ref:
        return objects_in(v.value)
    if type(v) is Off:
        return [v.base]
    if type(v) is Seq:
        return [o for x in v.items for o in objects_in(x)]
    if type(v) is Dict:
        return [o for _, x in v.items for o in objects_in(x)]
    return []


def refs(v: Val, out: set[Obj]) -> None:
    """Adds to `out` every object `v` may refer to, however deep (for collection:
    wider than `objects_in`, which follows only what a use reaches)."""
    if v is None or isinstance(v, LEAVES):
        return
    if isinstance(v, Obj):
        out.add(v)
    elif type(v) is Seq:
        for x in v.items:
            refs(x, out)
    elif type(v) is OneOf:
        for x in v.options:
            refs(x, out)
    elif type(v) is Dict:
        for _, x in v.items:
            refs(x, out)
    elif type(v) is Struct:
        for _, x in v.fields:
            refs(x, out)
    elif type(v) is Ref:
        refs(v.value, out)
    elif type(v) is Off:
        out.add(v.base)
    elif type(v) is Lent:
        out.add(v.owner)
    elif type(v) is Addr or type(v) is BufRef or type(v) is AIface:
        refs(v.buffer, out)


def parts(v: Val) -> tuple[Val, ...]:
    """The values directly inside a composite value (none for a leaf or an object)."""
    if type(v) is Seq:
        return v.items
    if type(v) is OneOf:
        return v.options
    if type(v) is Dict:
        return tuple(x for _, x in v.items)
    if type(v) is Struct:
        return tuple(x for _, x in v.fields)
    if type(v) is Ref:
        return (v.value,)
    if type(v) is Addr or type(v) is BufRef or type(v) is AIface:
        return (v.buffer,)
    return ()


def int_value(v: Val) -> int | None:
    """The integer a constant holds (not a bool), or None."""
    if type(v) is Const and isinstance(v.value, int) and not isinstance(v.value, bool):
        return v.value
    return None


def str_value(v: Val) -> str | None:
    """The string a constant holds, or None."""
    if type(v) is Const and isinstance(v.value, str):
        return v.value
    return None
