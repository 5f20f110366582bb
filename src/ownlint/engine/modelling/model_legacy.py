"""Model files in the format before effects (`[[create]]`, `[[release]]`,
`[[adopt]]`, `[[borrow]]`, `[[owner]]`, `[[submit]]`, `[[map]]`, `[[unmap]]`,
and a file-wide `[model] status`): each table is read as the `[[call]]`
entry with the same effects (model_calls.Entry), so an old file gives the
models it gave before. They still load, with a deprecation note
(models.py); rules/README.md says how to rewrite one.

With `success` in `[model]`, every create, release, map and unmap of such a
file returns a status: element `[model] status` of a tuple, or (without
`status`) the whole result.
"""

from __future__ import annotations

from ownlint.engine.modelling import effects as fx
from ownlint.engine.modelling.model_calls import Entry, adopt_effect, check_entry, tables
from ownlint.engine.modelling.model_reader import TableReader

SECTIONS = ("create", "release", "adopt", "borrow", "submit", "owner", "map", "unmap")
"""The per-call tables of the old format, in the order they were read."""


def read_legacy(top: TableReader, status: fx.Status | None) -> list[Entry]:
    """The entries of the old per-call tables of a file (`top`); `status`: the file's, if any."""
    entries: list[Entry] = []
    with_status = (status,) if status is not None else ()

    def add(r: TableReader, functions: list[str], *effects: fx.Effect, methods: tuple[str, ...] = ()) -> None:
        entry = Entry(r.where, tuple(functions), methods, effects)
        check_entry(r, entry)
        entries.append(entry)

    for i, raw in enumerate(tables(top, "create")):
        r = TableReader(top.path, f"[[create]][{i}]", raw)
        fns = r.get("functions", list, required=True)
        out = r.get("out", int)
        result = r.get("result", int)
        if (out is None) == (result is None):
            r.fail("out" if out is not None else "", "needs one of `out` and `result`")
        element = status.element if status is not None else None
        if result is not None and element is None and (status is not None or result != 0):
            r.fail("result", "a returned handle needs `status` in [model] (without a status, `result = 0`)")
        at: fx.At = fx.Out(out) if out is not None else fx.Element(result) if element is not None else fx.Result()
        kind = r.get("kind", str, "handle")
        released = tuple(r.get("released-by", list, []))
        create = fx.Create(kind, at, r.get("key", int), r.get("counted", bool, False), released)
        r.done()
        add(r, fns, create, *with_status)
    for i, raw in enumerate(tables(top, "release")):
        r = TableReader(top.path, f"[[release]][{i}]", raw)
        methods = r.get("methods", list)
        if methods is not None:
            of = tuple(r.get("of", list, required=True))
            r.done()
            add(r, [], fx.ReleaseReceiver(of), methods=tuple(methods))
            continue
        fns = r.get("functions", list, required=True)
        key = r.get("key", int)
        handle = r.get("handle", int, required=key is None)
        r.done()
        release = fx.Release(key, keyed=True) if key is not None else fx.Release(handle)
        add(r, fns, release, *with_status)
    return entries


def read_legacy_owned(top: TableReader, has_ownership: bool) -> list[Entry]:
    """The entries of the old tables read after `[ownership]`: adoptions, borrows,
    submissions, owners, mappings (in that order, as before)."""
    entries: list[Entry] = []
    for i, raw in enumerate(tables(top, "adopt")):
        r = TableReader(top.path, f"[[adopt]][{i}]", raw)
        fns = r.get("functions", list, required=True)
        adopt = adopt_effect(r, r.get("handle", int, 0))
        r.done()
        if not has_ownership and not adopt.fixed:
            r.fail("", "an [[adopt]] needs an [ownership] table in the same file, or a fixed `ownership`")
        entries.append(Entry(r.where, tuple(fns), (), (adopt,)))
    for i, raw in enumerate(tables(top, "borrow")):
        r = TableReader(top.path, f"[[borrow]][{i}]", raw)
        fns = r.get("functions", list, required=True)
        owner = r.get("owner", int, -1)
        method = r.get("method", str, "none")
        if method not in ("none", "tracked", "any"):
            r.fail("method", "must be 'none', 'tracked' or 'any'")
        unsupported = tuple(r.get("unsupported-owner-kinds", list, []))
        borrow = fx.Borrow(None if owner < 0 else owner, method, unsupported, r.get("thread-safe", bool, False))
        r.done()
        entries.append(Entry(r.where, tuple(fns), (), (borrow,)))
    for i, raw in enumerate(tables(top, "submit")):
        r = TableReader(top.path, f"[[submit]][{i}]", raw)
        fns = r.get("functions", list, required=True)
        dependencies = r.get("dependencies", int, -1)
        keep = fx.KeepAlive(
            tuple(r.get("arguments", "ints", [])),
            tuple(r.get("argument-keywords", list, [])),
            None if dependencies < 0 else dependencies,
            tuple(r.get("dependency-keywords", list, [])),
        )
        r.done()
        entries.append(Entry(r.where, tuple(fns), (), (keep,)))
    for i, raw in enumerate(tables(top, "owner")):
        r = TableReader(top.path, f"[[owner]][{i}]", raw)
        fns = r.get("functions", list, required=True)
        owner_kind = fx.Owner(r.get("owner-kind", str, "object"))
        r.done()
        entries.append(Entry(r.where, tuple(fns), (), (owner_kind,)))
    return entries


def read_legacy_maps(top: TableReader, status: fx.Status | None) -> list[Entry]:
    """The entries of the old `[[map]]` and `[[unmap]]` tables."""
    entries: list[Entry] = []
    with_status = (status,) if status is not None else ()
    for i, raw in enumerate(tables(top, "map")):
        r = TableReader(top.path, f"[[map]][{i}]", raw)
        fns = r.get("functions", list, required=True)
        address = r.get("address", int)
        effect: fx.Effect
        if address is not None:
            effect = fx.MapRange(
                address, r.get("size", int), r.get("kind", str, "mapping"), tuple(r.get("released-by", list, []))
            )
        else:
            effect = fx.MapDescriptor(
                r.get("descriptor", int, required=True),
                extension=r.get("extension", str, required=True),
                extension_stype=tuple(r.get("extension-stype", list, [])),
                type_field=r.get("type-field", str, ""),
                address_field=r.get("address-field", str, required=True),
                size_field=r.get("size-field", str, required=True),
                flags_field=r.get("flags-field", str, "flags"),
                read_only_flag=r.get("read-only-flag", str, ""),
                read_only_bit=r.get("read-only-bit", int, 0),
            )
        r.done()
        entries.append(Entry(r.where, tuple(fns), (), (effect, *with_status)))
    for i, raw in enumerate(tables(top, "unmap")):
        r = TableReader(top.path, f"[[unmap]][{i}]", raw)
        fns = r.get("functions", list, required=True)
        unmap = fx.Unmap(r.get("address", int, 0))
        r.done()
        entries.append(Entry(r.where, tuple(fns), (), (unmap, *with_status)))
    return entries


def read_legacy_consumers(top: TableReader) -> list[Entry]:
    """`[capsules] consumers = [...]` of the old format: the `[[call]]` entry
    with `consume = 0` for those callees (taken out of the section)."""
    raw = top.table.get("capsules")
    if not isinstance(raw, dict) or "consumers" not in raw:
        return []
    r = TableReader(top.path, "[capsules]", {"consumers": raw.pop("consumers")})
    return [Entry(r.where, tuple(r.get("consumers", list, required=True)), (), (fx.Consume(0),))]
