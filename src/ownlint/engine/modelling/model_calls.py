"""Reading the `[[call]]` entries of a model file: the callees, and their
effects (engine/modelling/effects.py), each effect an inline table named by one key:

    [[call]]
    functions = ["lib.alloc"]
    effects = [{ create = "memory", element = 1 }, { status = 0 }]

Every error is one line naming the file and the key
(`mine.toml: [[call]][2].effects[0].relase: unknown key`); what each key
means is in rules/README.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ownlint.engine.modelling import effects as fx
from ownlint.engine.modelling.model_reader import TableReader

EFFECT_KEYS = (
    "create",
    "release",
    "borrow",
    "adopt",
    "owner",
    "keep-alive",
    "consume",
    "map-range",
    "map-descriptor",
    "unmap",
    "status",
    "parent",
    "current",
    "push",
    "pop",
    "stream",
    "synchronize",
    "release-later",
)
"""The key that names each kind of effect table."""

RECEIVER = "receiver"
WHOLE = "whole"
ALL = "all"
CURRENT = "current"
MADE = "made"
NONE = "none"


@dataclass(frozen=True, slots=True)
class Entry:
    """One model entry: the callees it names and what each of them does. `methods`
    are method names (a release by method, or with `receiver_of` the methods
    of a receiver one of those callees made: `x = lib.Device(); x.open()`);
    `functions` are matched as the file's `match` says."""

    where: str  # "[[call]][3]", or the old section's name: errors and notes name it
    functions: tuple[str, ...]
    methods: tuple[str, ...]
    effects: tuple[fx.Effect, ...]
    receiver_of: tuple[str, ...] = ()


def read_call(r: TableReader, success: tuple[str, ...]) -> Entry:
    """A `[[call]]` table; `success` is the file's `[model] success` (the default of a `status`)."""
    functions = r.get("functions", list)
    methods = r.get("methods", list)
    if (functions is None) == (methods is None):
        r.fail("functions" if functions is not None else "", "needs one of `functions` and `methods`")
    receiver_of = r.get("receiver-of", list)
    if receiver_of is not None and methods is None:
        r.fail("receiver-of", "names the creators of a method's receiver: it needs `methods`")
    if receiver_of is not None and not receiver_of:
        r.fail("receiver-of", "must name at least one creator")
    raw = r.get("effects", "list of tables", required=True)
    if not raw:
        r.fail("effects", "must name at least one effect")
    r.done()
    found = tuple(_effect(TableReader(r.path, f"{r.where}.effects[{j}]", t), success) for j, t in enumerate(raw))
    entry = Entry(r.where, tuple(functions or ()), tuple(methods or ()), found, tuple(receiver_of or ()))
    check_entry(r, entry)
    return entry


def _effect(r: TableReader, success: tuple[str, ...]) -> fx.Effect:
    named = [k for k in r.table if k in _READERS]  # in the order written: the first names the effect
    if not named:
        r.fail("", f"names no effect (one of {', '.join(EFFECT_KEYS)})")
    if len(named) > 1:
        r.fail(named[1], f"a second effect in the table of `{named[0]}`: write one table each")
    effect = _READERS[named[0]](r, success)
    r.done()
    return effect


def _at(r: TableReader) -> fx.At:
    out = r.get("out", int)
    element = r.get("element", int)
    if out is not None and element is not None:
        r.fail("element", "a handle is at `out` or at `element`, not both")
    if out is not None:
        return fx.Out(out)
    return fx.Element(element) if element is not None else fx.Result()


def _index_or_receiver(r: TableReader, key: str) -> int | None:
    value = r.get(key, object)
    if value == RECEIVER:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        r.fail(key, f"must be an argument index or '{RECEIVER}'")
    r.get(key, int)  # its range
    return int(value)


def _create(r: TableReader, success: tuple[str, ...]) -> fx.Effect:
    kind = r.name("create")
    lifetime = r.get("lifetime", str, "owned")
    if lifetime not in fx.LIFETIMES:
        r.fail("lifetime", f"one of {', '.join(repr(x) for x in fx.LIFETIMES)}")
    return fx.Create(
        kind,
        _at(r),
        key=r.get("key", int),
        counted=r.get("counted", bool, False),
        released_by=tuple(r.get("released-by", list, [])),
        lifetime=lifetime,
        block=r.get("released-by-block", bool, False),
    )


def _release(r: TableReader, success: tuple[str, ...]) -> fx.Effect:
    arg = _index_or_receiver(r, "release")
    if arg is None:
        return fx.ReleaseReceiver(tuple(r.get("of", list, required=True)), r.get("idempotent", bool, False))
    return fx.Release(arg, keyed=r.get("keyed", bool, False))


def _borrow(r: TableReader, success: tuple[str, ...]) -> fx.Effect:
    owner = _index_or_receiver(r, "borrow")
    method = r.get("method", str, "any" if owner is None else "none")
    if method not in ("none", "tracked", "any"):
        r.fail("method", "must be 'none', 'tracked' or 'any'")
    if owner is None and method == "none":
        r.fail("method", f"a borrow from the '{RECEIVER}' is a method: 'tracked' or 'any'")
    return fx.Borrow(
        owner,
        method,
        unsupported=tuple(r.get("unsupported-owner-kinds", list, [])),
        thread_safe=r.get("thread-safe", bool, False),
    )


def _adopt(r: TableReader, success: tuple[str, ...]) -> fx.Effect:
    return adopt_effect(r, r.get("adopt", int, required=True))


def adopt_effect(r: TableReader, handle: int) -> fx.Adopt:
    """An `adopt` of the handle at `handle`, the rest of its keys read from `r`
    (the same in a `[[call]]` effect and an old `[[adopt]]` table)."""
    fixed = r.get("ownership", str, "")
    if fixed not in ("", "keep", "transfer"):
        r.fail("ownership", "must be 'keep' or 'transfer'")
    return fx.Adopt(
        handle,
        owner_kind=r.get("owner-kind", str, "owner"),
        fixed=fixed,
        non_empty_keywords=tuple(r.get("non-empty-keywords", list, [])),
        empty_constructor_suffixes=tuple(r.get("empty-constructor-suffixes", list, [])),
        property_keywords=tuple(r.get("property-keywords", list, [])),
        forbidden_properties=tuple(r.get("forbidden-properties", list, [])),
        native_memory_only=r.get("native-memory-only", bool, False),
    )


def _owner(r: TableReader, success: tuple[str, ...]) -> fx.Effect:
    return fx.Owner(r.name("owner"))


def _keep_alive(r: TableReader, success: tuple[str, ...]) -> fx.Effect:
    dependencies = r.get("dependencies", int)
    return fx.KeepAlive(
        tuple(r.get("keep-alive", "ints", required=True)),
        argument_keywords=tuple(r.get("argument-keywords", list, [])),
        dependencies=dependencies if dependencies is not None and dependencies >= 0 else None,
        dependency_keywords=tuple(r.get("dependency-keywords", list, [])),
    )


def _consume(r: TableReader, success: tuple[str, ...]) -> fx.Effect:
    if r.get("consume", int, required=True) != 0:
        r.fail("consume", "must be 0: a consumer takes its capsule as its first argument")
    return fx.Consume(0)


def _map_range(r: TableReader, success: tuple[str, ...]) -> fx.Effect:
    return fx.MapRange(
        r.get("map-range", int, required=True),
        size=r.get("size", int),
        kind=r.get("kind", str, "mapping"),
        released_by=tuple(r.get("released-by", list, [])),
    )


def _map_descriptor(r: TableReader, success: tuple[str, ...]) -> fx.Effect:
    return fx.MapDescriptor(
        r.get("map-descriptor", int, required=True),
        extension=r.get("extension", str, required=True),
        address_field=r.get("address-field", str, required=True),
        size_field=r.get("size-field", str, required=True),
        extension_stype=tuple(r.get("extension-stype", list, [])),
        type_field=r.get("type-field", str, ""),
        flags_field=r.get("flags-field", str, "flags"),
        read_only_flag=r.get("read-only-flag", str, ""),
        read_only_bit=r.get("read-only-bit", int, 0),
    )


def _unmap(r: TableReader, success: tuple[str, ...]) -> fx.Effect:
    return fx.Unmap(r.get("unmap", int, required=True))


def _status(r: TableReader, success: tuple[str, ...]) -> fx.Effect:
    shape = r.get("status", object)
    if shape != WHOLE:
        if not isinstance(shape, int) or isinstance(shape, bool):
            r.fail("status", f"must be a tuple element's index or '{WHOLE}' (the whole result)")
        r.get("status", int)  # its range
    values = tuple(r.get("success", list, list(success)))
    if not values:
        r.fail("status", "needs `success` (the values that mean success), here or in [model]")
    return fx.Status(None if shape == WHOLE else int(shape), values)


def _parent(r: TableReader, success: tuple[str, ...]) -> fx.Effect:
    parent = r.get("parent", object, required=True)
    releases = r.get("releases", bool, True)
    if parent == CURRENT:
        return fx.ParentOf(_at(r), None, releases)
    if not isinstance(parent, int) or isinstance(parent, bool):
        r.fail("parent", f"must be an argument index or '{CURRENT}' (the handle made current)")
    return fx.ParentOf(_at(r), r.get("parent", int), releases)


def _current(r: TableReader, success: tuple[str, ...]) -> fx.Effect:
    value = r.get("current", object, required=True)
    if value == MADE:
        return fx.Current(made=True)
    if value == NONE:
        return fx.Current()
    if not isinstance(value, int) or isinstance(value, bool):
        r.fail("current", f"must be an argument index, '{MADE}' (what the call makes) or '{NONE}' (not known)")
    return fx.Current(r.get("current", int))


def _push(r: TableReader, success: tuple[str, ...]) -> fx.Effect:
    return fx.Push(_kind(r, "push"))


def _pop(r: TableReader, success: tuple[str, ...]) -> fx.Effect:
    return fx.Pop(_kind(r, "pop"))


def _kind(r: TableReader, key: str) -> str:
    kind: str = r.get(key, str, required=True)
    if not kind:
        r.fail(key, "must name the kind of what is counted (a non-empty string)")
    return kind


def _stream(r: TableReader, success: tuple[str, ...]) -> fx.Effect:
    return fx.OnStream(
        r.get("stream", int, required=True),
        reads=tuple(r.get("reads", "ints", [])),
        marks=r.get("marks", int),
        waits=r.get("waits", int),
    )


def _synchronize(r: TableReader, success: tuple[str, ...]) -> fx.Effect:
    arg = r.get("synchronize", object)
    if arg == ALL:
        return fx.Synchronize(None)
    if not isinstance(arg, int) or isinstance(arg, bool):
        r.fail("synchronize", f"must be an argument's index or '{ALL}' (all work of the device)")
    return fx.Synchronize(r.get("synchronize", int))


def _release_later(r: TableReader, success: tuple[str, ...]) -> fx.Effect:
    return fx.ReleaseLater(r.get("release-later", int, required=True), r.get("by", int, required=True))


_READERS = {
    "create": _create,
    "release": _release,
    "borrow": _borrow,
    "adopt": _adopt,
    "owner": _owner,
    "keep-alive": _keep_alive,
    "consume": _consume,
    "map-range": _map_range,
    "map-descriptor": _map_descriptor,
    "unmap": _unmap,
    "status": _status,
    "parent": _parent,
    "current": _current,
    "push": _push,
    "pop": _pop,
    "stream": _stream,
    "synchronize": _synchronize,
    "release-later": _release_later,
}

_ALONE: frozenset[type] = frozenset((fx.KeepAlive, fx.Consume, fx.ReleaseReceiver, fx.ReleaseLater))
"""Effects the engine reads by name apart from a callee's model: an entry of their own."""
_ONE_EACH: frozenset[type] = frozenset(
    (
        fx.Release,
        fx.Borrow,
        fx.Adopt,
        fx.Owner,
        fx.MapRange,
        fx.MapDescriptor,
        fx.Unmap,
        fx.Status,
        fx.OnStream,
        fx.Synchronize,
        fx.Current,
        fx.Push,
        fx.Pop,
    )
)
"""Effects a callee has at most once per entry."""


def check_entry(r: TableReader, entry: Entry) -> None:
    """What the effects of one entry must agree on (whatever the file's format)."""
    effects = entry.effects
    kinds = [type(e) for e in effects]
    seen: set[type] = set()
    for kind in kinds:
        if kind in seen and kind in _ONE_EACH:
            r.fail("effects", f"more than one `{_key(kind)}` in one entry")
        seen.add(kind)
    if len(effects) > 1 and not seen.isdisjoint(_ALONE):
        alone = next(k for k in kinds if k in _ALONE)
        r.fail("effects", f"`{_key(alone)}` must be the only effect of its entry")
    receiver = fx.ReleaseReceiver in seen
    if entry.receiver_of and not seen.isdisjoint(_ALONE):
        alone = next(k for k in kinds if k in _ALONE)
        r.fail("receiver-of", f"`{_key(alone)}` is matched by the method's name alone: no `receiver-of`")
    if entry.methods and not receiver and not entry.receiver_of:
        r.fail(
            "methods",
            f"names methods whose receiver is released (`release = '{RECEIVER}'`)"
            " or made by a creator of `receiver-of`",
        )
    if receiver and not entry.methods:
        r.fail("effects", f"`release = '{RECEIVER}'` needs `methods` instead of `functions`")
    if fx.Create not in seen:
        return
    status = next((e for e in effects if type(e) is fx.Status), None)
    for e in effects:
        if type(e) is not fx.Create:
            continue
        if type(e.at) is fx.Element and (status is None or status.element is None):
            r.fail("effects", "a handle at a tuple `element` needs a `status` element in the same entry")
        if type(e.at) is fx.Result and status is not None:
            r.fail("effects", "with a `status`, the result is no handle: say which `element` is")


def _key(kind: type) -> str:
    return {
        fx.Create: "create",
        fx.Release: "release",
        fx.ReleaseReceiver: "release",
        fx.Borrow: "borrow",
        fx.Adopt: "adopt",
        fx.Owner: "owner",
        fx.KeepAlive: "keep-alive",
        fx.Consume: "consume",
        fx.MapRange: "map-range",
        fx.MapDescriptor: "map-descriptor",
        fx.Unmap: "unmap",
        fx.Status: "status",
        fx.ParentOf: "parent",
        fx.Current: "current",
        fx.Push: "push",
        fx.Pop: "pop",
        fx.OnStream: "stream",
        fx.Synchronize: "synchronize",
        fx.ReleaseLater: "release-later",
    }[kind]


def tables(r: TableReader, key: str) -> list[Any]:
    """The array of tables at `key` (empty when absent)."""
    value: list[Any] = r.get(key, "tables", [])
    return value
