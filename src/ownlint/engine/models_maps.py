"""The `[[map]]` and `[[unmap]]` entries of a model file (models.py reads the
rest): mappings described by a descriptor chain, and mappings given by an
address and a size that a later call ends by naming the address."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ownlint.engine.model_types import AddressMap, CallModel, MapCall, ModelSet, Unmap


def load_maps(
    models: ModelSet,
    top: Any,
    reader: Callable[[str, Any], Any],
    merge: Callable[[str, CallModel], None],
    status: bool,
    status_index: int | None,
    name: str,
) -> None:
    """Read the `[[map]]` and `[[unmap]]` tables of a file (`top`, a models._Reader)."""
    for i, raw in enumerate(top.get("map", "tables", [])):
        r = reader(f"[[map]][{i}]", raw)
        fns = r.get("functions", list, required=True)
        address = r.get("address", int)
        if address is not None:
            size = r.get("size", int)
            kind = r.get("kind", str, "mapping")
            released = tuple(r.get("released-by", list, []))
            r.done()
            for ender in released:
                models.ended_by.setdefault(ender, set()).add(kind)
            for fn in fns:
                spec = AddressMap(fn, address, size, kind, released, name)
                merge(fn, CallModel(address_map=spec, status=status, status_index=status_index))
            continue
        m = dict(
            descriptor=r.get("descriptor", int, required=True),
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
        for fn in fns:
            merge(fn, CallModel(maps=MapCall(fn, **m), status=status, status_index=status_index))
    for i, raw in enumerate(top.get("unmap", "tables", [])):
        r = reader(f"[[unmap]][{i}]", raw)
        fns = r.get("functions", list, required=True)
        address = r.get("address", int, 0)
        r.done()
        for fn in fns:
            merge(fn, CallModel(unmap=Unmap(fn, address, name), status=status, status_index=status_index))
