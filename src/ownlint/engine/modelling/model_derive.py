"""From a model entry's effects (engine/modelling/effects.py) to what the evaluator reads:
a `CallModel` per callee (its `creates`, `release`, `adopt`, `borrow`,
`owner_kind`, `record`, `maps`, `address_map`, `unmap`, `status`,
`status_index`), the entries matched by a method's name alone
(`ModelSet.by_method`), the methods of receivers made by given creators
(`ModelSet.receiver_methods`), and the tables read by name
(`ModelSet.release_methods`, `idempotent_releases`,
`observed` (effects only checkers apply), `ended_by`).

Entries for one callee merge in load order: `creates` add up, and each field
the evaluator reads once (a release, an adoption, a borrow, an owner kind, a
mapping, an unmap) is the latest entry's. The evaluator reads one status
shape per callee: where entries disagree (a binding returning tuples and a
ctypes spelling returning an `int`, under one name), a tuple element wins
over the whole result, whatever the order: the entries keep their own
`Status` in `CallModel.entries` for the evaluator that reads them per entry.
"""

from __future__ import annotations

from dataclasses import dataclass

from ownlint.engine.modelling import effects as fx
from ownlint.engine.modelling.model_calls import Entry
from ownlint.engine.modelling.model_types import (
    AddressMap,
    Adopt,
    Borrow,
    CallModel,
    Create,
    MapCall,
    ModelEntry,
    ModelSet,
    Ownership,
    Release,
    Unmap,
)

LAST_NAME_EFFECTS = (fx.Borrow, fx.MapRange, fx.MapDescriptor, fx.Unmap)
"""Effects matched by the callee's last name whatever the file's `match` says:
borrows are methods of any receiver, mappings C functions."""


@dataclass(frozen=True, slots=True)
class FileContext:
    """What a file's `[model]` and `[ownership]` tables give every entry of it."""

    model: str  # its name
    matching: str  # "last-name" or "qualified"
    ownership: Ownership


def add_entry(models: ModelSet, entry: Entry, ctx: FileContext) -> None:
    """Merge what `entry` says into `models`."""
    effects = entry.effects
    first = effects[0]
    if type(first) is fx.ReleaseReceiver:
        for m in entry.methods:
            models.release_methods[m] = models.release_methods.get(m, ()) + first.of
            if first.idempotent:
                models.idempotent_releases[m] = models.idempotent_releases.get(m, ()) + first.of
            _add_method(models, m, ModelEntry(ctx.model, effects), ctx)
        return
    if entry.receiver_of:
        for m in entry.methods:
            update = call_model(m, ModelEntry(ctx.model, effects), ctx)
            known = dict(models.receiver_methods.get(m, ()))
            old = known.pop(entry.receiver_of, None)  # the same creators: the entries merge
            typed = (entry.receiver_of, update if old is None else merge(old, update))
            models.receiver_methods[m] = (*known.items(), typed)
        return
    if type(first) is fx.KeepAlive or type(first) is fx.ReleaseLater:  # matched by the method's name
        for fn in entry.functions:
            _add_method(models, fn, ModelEntry(ctx.model, effects), ctx)
        return
    if type(first) is fx.Consume:
        for fn in entry.functions:
            models.observed[fn] = (*models.observed.get(fn, ()), ModelEntry(ctx.model, effects))
        return
    for e in effects:
        if type(e) is fx.MapRange:
            for ender in e.released_by:
                models.ended_by.setdefault(ender, set()).add(e.kind)
    last_name = any(isinstance(e, LAST_NAME_EFFECTS) for e in effects)
    table = models.by_last_name if last_name or ctx.matching == "last-name" else models.by_qualified
    record = ModelEntry(ctx.model, effects)
    for fn in entry.functions:
        update = call_model(fn, record, ctx)
        old = table.get(fn)
        table[fn] = update if old is None else merge(old, update)


def _add_method(models: ModelSet, name: str, record: ModelEntry, ctx: FileContext) -> None:
    """An entry matched by a method's name alone (`ModelSet.by_method`)."""
    update = call_model(name, record, ctx)
    old = models.by_method.get(name)
    models.by_method[name] = update if old is None else merge(old, update)


def call_model(fn: str, entry: ModelEntry, ctx: FileContext) -> CallModel:
    """What one entry says about the callee `fn`, in the evaluator's fields."""
    name = ctx.model
    creates: list[Create] = []
    release = adopt = borrow = maps = address_map = unmap = None
    owner_kind: str | None = None
    record = False
    status: fx.Status | None = None
    keep_alive: fx.KeepAlive | None = None
    for e in entry.effects:
        match e:
            case fx.Create(kind, at, key, counted, released_by):
                out = at.index if type(at) is fx.Out else None
                result = at.index if type(at) is fx.Element else 0 if type(at) is fx.Result else None
                creates.append(Create(fn, out, kind, released_by, name, result, key, counted))
            case fx.Release(arg, keyed):
                release = Release(fn, -1 if keyed else arg, name, arg if keyed else None)
            case fx.Adopt():
                adopt = Adopt(
                    fn,
                    e.handle,
                    e.owner_kind,
                    ctx.ownership,
                    name,
                    e.non_empty_keywords,
                    e.empty_constructor_suffixes,
                    e.property_keywords,
                    e.forbidden_properties,
                    e.native_memory_only,
                    e.fixed,
                )
            case fx.Borrow(owner, method, unsupported, thread_safe):
                owner_at = -1 if owner is None else owner
                borrow = Borrow(fn, owner_at, method, unsupported, ctx.ownership.guard_modules, name, thread_safe)
            case fx.Owner(kind):
                owner_kind = kind
            case fx.Record():
                record = True
            case fx.MapRange(address, size, kind, released_by):
                address_map = AddressMap(fn, address, size, kind, released_by, name)
            case fx.MapDescriptor():
                maps = MapCall(
                    fn,
                    e.descriptor,
                    e.extension,
                    e.extension_stype,
                    e.type_field,
                    e.address_field,
                    e.size_field,
                    e.flags_field,
                    e.read_only_flag,
                    e.read_only_bit,
                )
            case fx.Unmap(address):
                unmap = Unmap(fn, address, name)
            case fx.Status():
                status = e
            case fx.KeepAlive():
                keep_alive = e
            case _:  # ParentOf, Current, Push, Pop, OnStream, Synchronize, ReleaseLater: in `entries`, for the checkers
                pass
    return CallModel(
        creates=tuple(creates),
        release=release,
        adopt=adopt,
        borrow=borrow,
        owner_kind=owner_kind,
        record=record,
        maps=maps,
        address_map=address_map,
        unmap=unmap,
        status=status is not None,
        status_index=status.element if status is not None else None,
        keep_alive=keep_alive,
        entries=(entry,),
    )


def merge(old: CallModel, update: CallModel) -> CallModel:
    """`old` with a later entry's `update` (see the module docstring)."""
    if update.status and (update.status_index is not None or not old.status):
        status_index = update.status_index
    else:
        status_index = old.status_index
    return CallModel(
        creates=old.creates + update.creates,
        release=update.release or old.release,
        adopt=update.adopt or old.adopt,
        borrow=update.borrow or old.borrow,
        owner_kind=update.owner_kind or old.owner_kind,
        record=update.record or old.record,
        maps=update.maps or old.maps,
        address_map=update.address_map or old.address_map,
        unmap=update.unmap or old.unmap,
        status=update.status or old.status,
        status_index=status_index,
        keep_alive=update.keep_alive or old.keep_alive,
        entries=old.entries + update.entries,
    )
