"""The effects a call can have: the vocabulary of model files (`[[call]]`
entries in `rules/*.toml`, documented in `rules/README.md`).

A model entry says what a callee does as a tuple of these small values
(Infer Pulse's models and Pysa's `.pysa` files work this way): it creates a
handle of a kind somewhere, releases one, lends one from an owner, adopts
one, keeps its arguments alive until an event is waited, queues work on
a stream, waits for a stream, consumes a
capsule, maps an address range, ends a mapping, returns a status. Each
effect is plain data: the loader (models.py) checks it and derives from the
effects the fields the evaluator reads (model_types.CallModel's `creates`,
`release`, `status_index`...); rule families interpret the effects they care
about and ignore the rest.

Argument indexes are positional; a negative index counts from the end (an
out-parameter written last: `lib.alloc(ctx, desc, size, byref(p))`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias


@dataclass(frozen=True, slots=True)
class Result:
    """The call's value itself (`p = malloc(n)`)."""


@dataclass(frozen=True, slots=True)
class Element:
    """Element `index` of the tuple the call returns (`err, p = lib.alloc(n)`: element 1)."""

    index: int


@dataclass(frozen=True, slots=True)
class Out:
    """The variable passed at argument `index` as `byref(x)` / `pointer(x)` (negative: from the end)."""

    index: int


At: TypeAlias = Result | Element | Out
"""Where a call puts a handle it makes."""

Lifetime: TypeAlias = Literal["owned", "collected", "process"]
LIFETIMES: tuple[Lifetime, ...] = ("owned", "collected", "process")


@dataclass(frozen=True, slots=True)
class Create:
    """The call makes a new handle of `kind` (shown in messages: "memory created
    here") at `at`, which the program owns until a release. With `key`, the
    argument at that index names the handle for a keyed release (a device
    naming its primary context); `counted`: n creations with one key allow n
    keyed releases. `released_by` documents the pairing; nothing reads it.
    `lifetime`: who ends the handle: the program, by a release ("owned"), its
    Python object when collected ("collected"), or nobody before the process
    exits ("process"); only an owned handle can leak. `block`: opened as a
    `with` item (`with lib.mapped(a) as d:`), the handle is released when
    that block ends."""

    kind: str
    at: At
    key: int | None = None
    counted: bool = False
    released_by: tuple[str, ...] = ()
    lifetime: Lifetime = "owned"
    block: bool = False


@dataclass(frozen=True, slots=True)
class Release:
    """The call releases the handle at argument `arg` (`lib.free(p)`). With
    `keyed`, the argument is a key instead: the call releases what a `Create`
    with that key made, and the key itself stays valid."""

    arg: int
    keyed: bool = False


@dataclass(frozen=True, slots=True)
class ReleaseReceiver:
    """A method (`alloc.free()`) that releases its receiver when one of the
    callees `of` made it (a method name alone is too common to trust). With
    `idempotent`, calling it again on the released receiver does nothing
    (no double release: the object forgot its handle); a use afterwards is
    still one."""

    of: tuple[str, ...]
    idempotent: bool = False


@dataclass(frozen=True, slots=True)
class Borrow:
    """The call returns a handle borrowed from an owner, valid while the owner
    lives: the owner is argument `owner` in the function form (None: no
    function form), and with `method` the receiver of `owner.f()`
    ("tracked": only an owner ownlint tracks; "any": any receiver; "none":
    not as a method). `unsupported` owner kinds must not lend at all;
    `thread_safe`: the handle may be used from any thread."""

    owner: int | None
    method: Literal["none", "tracked", "any"] = "none"
    unsupported: tuple[str, ...] = ()
    thread_safe: bool = False


@dataclass(frozen=True, slots=True)
class Adopt:
    """The call builds an owner of `owner_kind` from the native handle at
    argument `handle` (`make_owner(h, ...)`), taking its ownership or keeping
    it as the call's ownership argument says (the file's `[ownership]`
    spellings), or as `fixed` says whatever the call passes ("keep",
    "transfer"; "": from the call). The rest are the inputs the API's
    specification rules out (empty lists, forbidden properties, host memory)."""

    handle: int
    owner_kind: str = "owner"
    fixed: Literal["", "keep", "transfer"] = ""
    non_empty_keywords: tuple[str, ...] = ()
    empty_constructor_suffixes: tuple[str, ...] = ()
    property_keywords: tuple[str, ...] = ()
    forbidden_properties: tuple[str, ...] = ()
    native_memory_only: bool = False


@dataclass(frozen=True, slots=True)
class Owner:
    """The call's value is an owner of `kind` (a queue object, an array that
    owns device memory): handles borrowed from it live as long as it does."""

    kind: str


@dataclass(frozen=True, slots=True)
class Record:
    """The call's keyword arguments make a record (a backend-input structure)
    that an adopting call reads through the `[ownership]` field names."""


@dataclass(frozen=True, slots=True)
class KeepAlive:
    """An asynchronous submission (`q.submit(kernel, args, ...)`): it
    returns an event at once, and the memory at `arguments` (positions; a
    list or tuple there: its elements) and `argument_keywords` must stay
    alive until that event, or a later one depending on it, is waited. The
    events it waits for itself are at `dependencies` (None: none) or
    `dependency_keywords`."""

    arguments: tuple[int, ...]
    argument_keywords: tuple[str, ...] = ()
    dependencies: int | None = None
    dependency_keywords: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Consume:
    """The call consumes the capsule at argument `arg` (`consume(cap)`):
    a capsule may be consumed once."""

    arg: int


@dataclass(frozen=True, slots=True)
class MapRange:
    """The call maps `[address, address + size)` (argument indexes; `size`
    None: unknown) as a mapping of `kind`, until an `Unmap` names its start.
    Live mappings of one kind may not overlap. `released_by` lists the calls
    that end it (each gets the kind: a second end is a double release)."""

    address: int
    size: int | None = None
    kind: str = "mapping"
    released_by: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MapDescriptor:
    """The call maps host memory when the descriptor at argument `descriptor`
    chains an `extension` structure (or one whose `type_field` holds one of
    `extension_stype`), whose fields give the address and the size; the host
    descriptor's `flags_field` with `read_only_flag` / `read_only_bit` says
    the mapping is read-only."""

    descriptor: int
    extension: str
    address_field: str
    size_field: str
    extension_stype: tuple[str, ...] = ()
    type_field: str = ""
    flags_field: str = "flags"
    read_only_flag: str = ""
    read_only_bit: int = 0


@dataclass(frozen=True, slots=True)
class Unmap:
    """The call ends the live mapping that starts at argument `address`; the
    memory itself stays valid."""

    address: int


@dataclass(frozen=True, slots=True)
class Status:
    """The call returns a status: the whole value (`element` None: an `int`,
    as through ctypes) or element `element` of the tuple it returns
    (`err, p = lib.alloc(n)`). `success` lists the values meaning
    success (last dotted names, integers written as strings: "0"); on
    failure the call did nothing (created, released, mapped nothing)."""

    element: int | None
    success: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ParentOf:
    """What the call makes at `child` belongs to the handle at argument
    `parent` (memory to its context, a kernel to its module; None: to the
    handle a `Current` effect made current on the path): destroying the
    parent ends the child, and (`releases`) releases it too; else the child
    must still be released (memory mapped from an external memory object)."""

    child: At
    parent: int | None
    releases: bool = True


@dataclass(frozen=True, slots=True)
class Current:
    """The call makes the handle at argument `arg` (with `made`: the handle
    the call makes) the current one of its thread, which a `ParentOf` with
    no parent argument takes as the parent; neither: which handle is
    current is not known any more (a pop)."""

    arg: int | None = None
    made: bool = False


@dataclass(frozen=True, slots=True)
class Push:
    """One half of a counted pair: the call adds one of `kind` to the count
    the path keeps of that kind (a context pushed on the thread's stack);
    what it adds is named by no handle. The path should end with the count
    where it started."""

    kind: str


@dataclass(frozen=True, slots=True)
class Pop:
    """The other half of a counted pair: the call names no handle and ends
    the latest one of `kind` that a `Push` made on this path."""

    kind: str


@dataclass(frozen=True, slots=True)
class OnStream:
    """The call queues work on the stream (or in-order queue) at argument
    `stream` and returns before it runs: the work reads or writes the
    handles at `reads` (a list or tuple there: its elements) until that
    stream is synchronized. With `marks`, the event at that argument
    completes when the work queued on the stream so far does (an event
    record); with `waits`, later work of the stream waits for the event at
    that argument. A release in the same call is ordered on the stream:
    after the work queued on it."""

    stream: int
    reads: tuple[int, ...] = ()
    marks: int | None = None
    waits: int | None = None


@dataclass(frozen=True, slots=True)
class ReleaseLater:
    """The call queues a release of the handle at argument `handle` by the
    release function at argument `by` (a finalizer queue:
    `queue.add_item(free, p, size)`), which runs later, when the program no
    longer chooses: an explicit release of the handle, before or after, is
    a second one."""

    handle: int
    by: int


@dataclass(frozen=True, slots=True)
class Synchronize:
    """The call waits until the stream or event at argument `arg` is done
    (None: all work of the device)."""

    arg: int | None


Effect: TypeAlias = (
    Create
    | Release
    | ReleaseReceiver
    | Borrow
    | Adopt
    | Owner
    | Record
    | KeepAlive
    | Consume
    | MapRange
    | MapDescriptor
    | Unmap
    | Status
    | ParentOf
    | Current
    | Push
    | Pop
    | OnStream
    | ReleaseLater
    | Synchronize
)
"""One effect of a call."""


__all__ = [
    "LIFETIMES",
    "Adopt",
    "At",
    "Borrow",
    "Consume",
    "Create",
    "Current",
    "Effect",
    "Element",
    "KeepAlive",
    "Lifetime",
    "MapDescriptor",
    "MapRange",
    "OnStream",
    "Out",
    "Owner",
    "ParentOf",
    "Pop",
    "Push",
    "Record",
    "Release",
    "ReleaseLater",
    "ReleaseReceiver",
    "Result",
    "Status",
    "Synchronize",
    "Unmap",
]
