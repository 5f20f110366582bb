"""The data classes of API models (models.py loads them from TOML): what a
call creates, releases, adopts or borrows, the memory, capsule, thread,
host-task and environment rules, and the merged `ModelSet` the engine asks
what a callee does.

A callee's model is canonically its entries' effects (engine/modelling/effects.py,
`CallModel.entries`); the other fields of `CallModel` (`creates`, `release`,
`status_index`...) are derived from them when the files are loaded
(model_derive.py), in the shape the evaluator reads."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from ownlint.engine.modelling import effects as fx
from ownlint.engine.modelling.name_pattern import NamePattern


@dataclass(frozen=True, slots=True)
class Create:
    """A call that creates a handle in an out-parameter (`byref(x)` / `pointer(x)`),
    or returns it (`result`: the call's value, or an element of the tuple it
    returns where its model has a status element)."""

    function: str
    out: int | None  # argument index; negative counts from the end (None: returned)
    kind: str
    released_by: tuple[str, ...]
    model: str
    result: int | None = None  # the element of a returned tuple that is the handle
    key: int | None = None  # the argument whose value names the handle (a keyed release names it)
    counted: bool = False  # n creations with one key allow n keyed releases


@dataclass(frozen=True, slots=True)
class Release:
    """A call that destroys or frees the handle passed at `handle`."""

    function: str
    handle: int
    model: str
    key: int | None = None  # releases the handle created with the key at this argument (`handle` unused)


@dataclass(frozen=True, slots=True)
class Ownership:
    """How an adopting call spells the handle and the ownership (an `[[adopt]]` entry of a model file)."""

    keywords: tuple[str, ...] = ()  # `ownership=` keyword names
    fields: tuple[str, ...] = ()  # the ownership field of a backend-input record
    handle_fields: tuple[str, ...] = ()  # the handle field of a backend-input record
    keep: tuple[str, ...] = ()  # last dotted part or string meaning keep
    transfer: tuple[str, ...] = ()  # ... meaning transfer
    guard_modules: tuple[str, ...] = ()  # callee modules that make a call interop


@dataclass(frozen=True, slots=True)
class Adopt:
    """A call that builds an owner from a native handle (`make_owner(h, ...)`)."""

    function: str
    handle: int
    owner_kind: str
    ownership: Ownership
    model: str
    # inputs the specification rules out
    non_empty_keywords: tuple[str, ...] = ()
    # constructors called with no argument make an empty one (`DeviceList()`): names ending so
    empty_constructor_suffixes: tuple[str, ...] = ()
    property_keywords: tuple[str, ...] = ()
    forbidden_properties: tuple[str, ...] = ()
    native_memory_only: bool = False
    fixed: str = ""  # `ownership = "keep"` / "transfer": whatever the call says ("": from [ownership])


@dataclass(slots=True)
class CapsuleModel:
    producer_methods: set[str] = field(default_factory=set)
    producer_functions: set[str] = field(default_factory=set)
    export_methods: set[str] = field(default_factory=set)
    export_functions: set[str] = field(default_factory=set)
    explicit_contexts: set[str] = field(default_factory=set)
    carrier_keywords: set[str] = field(default_factory=set)
    carrier_positional: set[str] = field(default_factory=set)


@dataclass(slots=True)
class ThreadModel:
    thread_constructors: set[str] = field(default_factory=set)
    argument_keywords: set[str] = field(default_factory=set)
    executor_constructors: set[str] = field(default_factory=set)
    executor_methods: set[str] = field(default_factory=set)


@dataclass(slots=True)
class HostTaskModel:
    native_mem_methods: set[str] = field(default_factory=set)


@dataclass(slots=True)
class EnvModel:
    deprecated: set[str] = field(default_factory=set)
    replacement: str = ""
    mappings: set[str] = field(default_factory=set)
    read_methods: set[str] = field(default_factory=set)
    read_functions: set[str] = field(default_factory=set)
    env_keywords: set[str] = field(default_factory=set)
    env_functions: set[str] = field(default_factory=set)
    env_last_argument: set[str] = field(default_factory=set)
    # values of the deprecated variable with an exact equivalent (the fix is safe)
    translations: dict[str, str] = field(default_factory=dict)
    # value prefixes followed by a device number, and the new prefix (the fix is
    # unsafe: the numbers may count different devices)
    numbered_translations: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Borrow:
    """A call that hands out a handle borrowed from an owner (`lend(q)`)."""

    function: str
    owner: int  # positional index of the owner in the function form; -1: none
    method: str  # "none", "tracked" (only on a tracked owner) or "any"
    unsupported: tuple[str, ...]  # owner kinds it must not be called on
    guard_modules: tuple[str, ...]
    model: str
    thread_safe: bool = False  # the borrowed handle may be used from any thread


@dataclass(frozen=True, slots=True)
class BorrowAttribute:
    """An attribute of an owner that is a borrowed address (`mem._pointer`), or
    leads to one through constant subscripts (`a.__array_interface__["data"][0]`)."""

    borrow: Borrow  # its `function` is the attribute's name
    path: tuple[str | int, ...]  # the subscripts after the attribute
    owner_kinds: tuple[str, ...]  # only on owners of these kinds (empty: any tracked owner)


@dataclass(slots=True)
class AsyncModel:
    """What ends an asynchronous submission's hold on its arguments (`[async]`)."""

    memory_owner_kinds: set[str] = field(default_factory=set)  # owners that must stay alive
    wait_methods: set[str] = field(default_factory=set)  # ev.wait(), q.wait()
    wait_functions: set[str] = field(default_factory=set)  # wait for every event of the first argument
    keep_alive_methods: set[str] = field(default_factory=set)  # (args, events): args kept alive


@dataclass(frozen=True, slots=True)
class MapCall:
    """A call that may map host memory through a chained extension descriptor."""

    function: str
    descriptor: int
    extension: str
    extension_stype: tuple[str, ...]
    type_field: str  # the descriptor field that holds its structure type ("" = none)
    address_field: str
    size_field: str
    flags_field: str
    read_only_flag: str
    read_only_bit: int


@dataclass(slots=True)
class MemoryModel:
    """Where host memory comes from, for mappings (the memory sections of a model file)."""

    page_size: set[str] = field(default_factory=set)
    page_size_calls: set[str] = field(default_factory=set)
    page_size_sysconf: set[str] = field(default_factory=set)
    page_size_sysconf_names: set[str] = field(default_factory=set)  # their arguments that ask for the page size
    aligned: set[str] = field(default_factory=set)
    unaligned: set[str] = field(default_factory=set)
    read_only: set[str] = field(default_factory=set)
    read_only_keywords: set[str] = field(default_factory=set)  # "access=ACCESS_READ"
    read_only_methods: set[str] = field(default_factory=set)
    array_type_modules: set[str] = field(default_factory=set)
    views: set[str] = field(default_factory=set)
    from_buffer_methods: set[str] = field(default_factory=set)
    addressof: set[str] = field(default_factory=set)
    char_pointer: set[str] = field(default_factory=set)
    address_attributes: set[str] = field(default_factory=set)
    address_methods: set[str] = field(default_factory=set)  # "ctypes.data_as": arr.ctypes.data_as(T)
    view_modules: set[str] = field(default_factory=set)  # buffers of these modules: a slice is a view
    view_methods: set[str] = field(default_factory=set)  # and these methods give a view
    array_interface: str = ""
    close_methods: set[str] = field(default_factory=set)
    descriptor_pattern: str = ""
    descriptor_re: NamePattern | None = None  # descriptor_pattern, compiled when loaded
    chain_field: str = ""
    keeps_alive: set[str] = field(default_factory=set)


@dataclass(frozen=True, slots=True)
class AddressMap:
    """A call that maps the range given by its arguments (`[[map]] address`,
    `size`) until a call of `released_by` names its start (`[[unmap]]`)."""

    function: str
    address: int
    size: int | None
    kind: str  # "host registration": mappings of one kind may not overlap
    released_by: tuple[str, ...]
    model: str = ""


@dataclass(frozen=True, slots=True)
class Unmap:
    """A call that ends the live mapping starting at its argument `address`."""

    function: str
    address: int
    model: str = ""


@dataclass(frozen=True, slots=True)
class ModelEntry:
    """What one entry of the model file named `model` says a callee does."""

    model: str
    effects: tuple[fx.Effect, ...]


@dataclass(frozen=True, slots=True)
class CallModel:
    """Everything the models say about one callee: its `entries` (the effects,
    in load order), and the fields derived from them that the evaluator reads."""

    creates: tuple[Create, ...] = ()
    release: Release | None = None
    adopt: Adopt | None = None
    borrow: Borrow | None = None
    owner_kind: str | None = None  # a constructor whose result is an owner (a queue, an array)
    record: bool = False  # a backend-input constructor: its keywords make a record
    maps: MapCall | None = None
    address_map: AddressMap | None = None
    unmap: Unmap | None = None
    # the call returns a status (`success` says which values mean success):
    # the whole result, or element `status_index` of the tuple it returns
    status: bool = False
    status_index: int | None = None
    keep_alive: fx.KeepAlive | None = None  # it reads these arguments until an event is waited
    entries: tuple[ModelEntry, ...] = ()
    # the effects of every entry for this callee, in load order (made once: every call's checkers read them)
    effects: tuple[fx.Effect, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "effects", tuple(e for entry in self.entries for e in entry.effects))


@dataclass(slots=True)
class ModelSet:
    """The merged models: lookups by callee name, plus Python-level value rules."""

    files: list[Path] = field(default_factory=list)
    by_last_name: dict[str, CallModel] = field(default_factory=dict)
    by_qualified: dict[str, CallModel] = field(default_factory=dict)
    # what the models say of a method by its name alone, whatever the receiver
    # (`q.submit(...)`, `buf.free()`): the entries the tables below derive from
    by_method: dict[str, CallModel] = field(default_factory=dict)
    out_parameter: set[str] = field(default_factory=set)
    borrow_attributes: dict[str, BorrowAttribute] = field(default_factory=dict)  # by attribute name
    asynchronous: AsyncModel = field(default_factory=AsyncModel)
    derive: set[str] = field(default_factory=set)
    derive_attributes: set[str] = field(default_factory=set)
    inspect: set[str] = field(default_factory=set)
    inspect_prefixes: tuple[str, ...] = ()
    inspect_receivers: set[str] = field(default_factory=set)
    store_methods: set[str] = field(default_factory=set)
    # `f(obj, release, *args)` registers `release(*args)` to run when `obj` dies
    finalizers: set[str] = field(default_factory=set)
    memory: MemoryModel = field(default_factory=MemoryModel)
    non_raising: set[str] = field(default_factory=set)  # last names of calls that never raise
    # context managers whose block must raise (`pytest.raises`): qualified
    # names, or method names without a dot (`self.assertRaises`)
    raising_blocks: set[str] = field(default_factory=set)
    # calls that never return (`pytest.skip`, `sys.exit`), qualified
    no_return: set[str] = field(default_factory=set)
    # calls that end the process (`sys.exit`), qualified: nothing the program
    # holds outlives them, so no handle leaks on the way out
    ends_process: set[str] = field(default_factory=set)
    capsules: CapsuleModel = field(default_factory=CapsuleModel)
    threads: ThreadModel = field(default_factory=ThreadModel)
    host_task: HostTaskModel = field(default_factory=HostTaskModel)
    environment: EnvModel = field(default_factory=EnvModel)
    forbidden: frozenset[str] = frozenset()  # see forbidden_properties; set once all files are loaded
    # every creator a `receiver-of` names (see creators_of_receivers); set once all files are loaded
    receiver_creators: frozenset[str] = frozenset()
    # status values meaning success: last dotted names, and integers written as strings ("0")
    success: set[str] = field(default_factory=set)
    # `x.m()` releases `x` when one of these creators made it: method name -> creators
    release_methods: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # ... and of those, the creators whose release method may run again harmlessly
    idempotent_releases: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # `x.m(...)` does what a model says when one of its creators made `x`:
    # method name -> (creators, what the call does), in load order
    receiver_methods: dict[str, tuple[tuple[tuple[str, ...], CallModel], ...]] = field(default_factory=dict)
    # entries whose effects only the checkers apply (a consumption), by callee
    # (a last name, or a qualified one): published with `CallPost.model`
    observed: dict[str, tuple[ModelEntry, ...]] = field(default_factory=dict)
    published_cache: dict[str, CallModel | None] = field(default_factory=dict)
    # where a model's API is specified (`[model] reference`), by model name
    references: dict[str, str] = field(default_factory=dict)
    # the address of its documentation (`[model] reference-url`; `{name}`: the call's last name), by model name
    reference_urls: dict[str, str] = field(default_factory=dict)
    # the kinds of address mappings (`[[map]] address`) each call ends, by its last name
    ended_by: dict[str, set[str]] = field(default_factory=dict)

    def published(self, qualified: str) -> CallModel | None:
        """What the models say about a callee, for the checkers (`events.CallPost`):
        `call`'s model with the entries the evaluator leaves to them (`observed`)."""
        try:
            return self.published_cache[qualified]
        except KeyError:
            pass
        found = self.call(qualified)
        extra = self.observed.get(qualified) or self.observed.get(qualified.rpartition(".")[2])
        if extra:
            found = replace(found or CallModel(), entries=(*(found.entries if found else ()), *extra))
        self.published_cache[qualified] = found
        return found

    def call(self, qualified: str) -> CallModel | None:
        """What the models say about a callee spelled `qualified` (see names.qualify)."""
        hit = self.by_qualified.get(qualified)
        if hit is not None:
            return hit
        return self.by_last_name.get(qualified.rpartition(".")[2])

    def method(self, name: str) -> CallModel | None:
        """What the models say about a method called `name` whatever its receiver
        (an entry matched by the method's name alone), if anything."""
        return self.by_method.get(name)

    def receiver_method(self, name: str, made_by: str) -> CallModel | None:
        """What the method `name` does on a receiver that the callee `made_by`
        made (a creator named by its qualified or its last name), if a model
        says: the latest entry that names it."""
        last = made_by.rpartition(".")[2]
        found = None
        for creators, cm in self.receiver_methods.get(name, ()):
            if made_by in creators or last in creators:
                found = cm
        return found

    def receives(self, qualified: str) -> bool:
        """Whether some entry gives methods to receivers that the callee
        `qualified` made (a `receiver-of` naming it, by its qualified or its
        last name, as `receiver_method` matches)."""
        names = self.receiver_creators
        return qualified in names or qualified.rpartition(".")[2] in names

    def creators_of_receivers(self) -> frozenset[str]:
        """Every creator a `receiver-of` names, as it is written."""
        return frozenset(c for entries in self.receiver_methods.values() for creators, _ in entries for c in creators)

    def released_by_block(self, qualified: str) -> bool:
        """Whether what the callee `qualified` makes is released when the `with`
        block it opens ends (a `create` with `released-by-block`)."""
        cm = self.call(qualified)
        return cm is not None and any(type(e) is fx.Create and e.block for e in cm.effects)

    def reference_of(self, qualified: str) -> str | None:
        """Where the API of the callee `qualified` is specified, if its model says so."""
        return next((self.references[n] for n in self._models_of(qualified) if n in self.references), None)

    def reference_url_of(self, qualified: str) -> str | None:
        """The page documenting the callee `qualified`, if its model gives one
        (`{name}` in the model's address is the callee's last name)."""
        urls = self.reference_urls
        url = next((urls[n] for n in self._models_of(qualified) if n in urls), None)
        return url.replace("{name}", qualified.rpartition(".")[2]) if url is not None else None

    def _models_of(self, qualified: str) -> list[str]:
        """The models that create, release, adopt, lend or map with the callee
        `qualified` (a method: with the entries that name it)."""
        cm = self.call(qualified)
        if cm is None:
            last = qualified.rpartition(".")[2]
            typed = self.receiver_methods.get(last, ())
            method = self.by_method.get(last) or (typed[-1][1] if typed else None)
            return [e.model for e in method.entries] if method is not None else []
        if cm is None:
            return []
        named = [c.model for c in cm.creates]
        named += [m.model for m in (cm.release, cm.adopt, cm.borrow, cm.address_map, cm.unmap) if m is not None]
        return named

    def is_inspection(self, qualified: str) -> bool:
        if qualified in self.inspect or qualified.startswith(self.inspect_prefixes):
            return True
        head, _, _ = qualified.rpartition(".")
        return bool(head) and head.rpartition(".")[2] in self.inspect_receivers

    def forbidden_properties(self) -> frozenset[str]:
        """Property names some adopting call forbids."""
        return frozenset(
            p for cm in self.by_last_name.values() if cm.adopt is not None for p in cm.adopt.forbidden_properties
        )

    def expects_raise(self, qualified: str) -> bool:
        """Whether the call `qualified` makes a context manager whose block must raise."""
        blocks = self.raising_blocks
        return bool(blocks) and (qualified in blocks or qualified.rpartition(".")[2] in blocks)

    def never_raises(self, qualified: str) -> bool:
        return qualified.rpartition(".")[2] in self.non_raising

    def trigger_words(self) -> set[str]:
        """Names whose absence from a file's text proves no model applies there."""
        qualified = {q.rpartition(".")[2] for q in (*self.by_qualified, *self.receiver_classes())}
        return set(self.by_last_name) | qualified | self.keep_alive_methods()

    def receiver_classes(self) -> set[str]:
        """The creators a `receiver-of` names that may be a parameter's
        annotation (a class: a last name that starts with a capital),
        qualified or not: an annotation of one is a modelled receiver
        (`receives`), even where no call of the class is spelled (an
        abstract base no call makes)."""
        return {c for c in self.creators_of_receivers() if c.rpartition(".")[2][:1].isupper()}

    def keep_alive_methods(self) -> set[str]:
        """The methods matched by name alone that keep their arguments alive:
        modelled calls on their own (a release method needs its creator)."""
        return {m for m, cm in self.by_method.items() if cm.keep_alive is not None}

    def qualified_roots(self) -> dict[str, set[str]]:
        """For each last name of a qualified model name (`empty` of `arrays.empty`),
        the top-level packages such names start with: a call of one is spelled
        in a file that names its package too (`import arrays`, `from arrays import
        empty`), so `empty` alone lets no model apply."""
        roots: dict[str, set[str]] = {}
        for q in (*self.by_qualified, *(c for c in self.receiver_classes() if "." in c)):
            root, dot, _ = q.partition(".")
            roots.setdefault(q.rpartition(".")[2], set()).add(root if dot else q)
        return roots
