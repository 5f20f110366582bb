"""API models as data: the TOML files under `rules/` (and the user's).

The format is documented in `rules/README.md`. Loading validates every key:
a bad file is a `ModelError` whose text is one line naming the file and the
key. The engine asks a `ModelSet` what a callee does; it never names an API.

This module loads and validates the files; the data classes they fill are in
model_types.py (and exported from here too).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from ownlint.engine.model_types import (
    Adopt,
    AsyncModel,
    Borrow,
    BorrowAttribute,
    CallModel,
    CapsuleModel,
    Create,
    EnvModel,
    HostTaskModel,
    MapCall,
    MemoryModel,
    ModelSet,
    Ownership,
    Release,
    Submit,
    ThreadModel,
)
from ownlint.engine.models_maps import load_maps


class ModelError(ValueError):
    """A model file that cannot be used; str() is one line naming the file and key."""


def builtin_model_dir() -> Path:
    here = Path(__file__).resolve().parent.parent
    packaged = here / "_rules"
    if packaged.is_dir():
        return packaged
    return here.parent.parent / "rules"  # a source checkout or an editable install


class _Reader:
    """Validates one TOML table, naming the file and key in every error."""

    def __init__(self, path: Path, where: str, table: Any) -> None:
        self.path = path
        self.where = where
        if not isinstance(table, dict):
            self.fail("", "must be a table")
        self.table: dict[str, Any] = table
        self.used: set[str] = set()

    def fail(self, key: str, why: str) -> None:
        k = f"{self.where}.{key}" if key else self.where
        raise ModelError(f"{self.path}: {k}: {why}")

    def get(self, key: str, kind: type | str, default: Any = None, required: bool = False) -> Any:
        self.used.add(key)
        if key not in self.table:
            if required:
                self.fail(key, "missing")
            return default
        value = self.table[key]
        if kind == "tables":
            if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
                raise ModelError(f"{self.path}: [[{key}]]: must be an array of tables")
        elif kind is list:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                self.fail(key, "must be a list of strings")
        elif kind == "path":  # constant subscripts: strings and integers
            if not isinstance(value, list) or not all(
                isinstance(v, (str, int)) and not isinstance(v, bool) for v in value
            ):
                self.fail(key, "must be a list of strings and integers")
        elif kind == "ints":
            if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
                self.fail(key, "must be a list of integers")
        elif kind is int:
            if not isinstance(value, int) or isinstance(value, bool):
                self.fail(key, "must be an integer")
        elif isinstance(kind, type) and not isinstance(value, kind):
            self.fail(key, f"must be a {kind.__name__}")
        return value

    def done(self) -> None:
        extra = sorted(set(self.table) - self.used)
        if extra:
            self.fail(extra[0], "unknown key")


_VALUE_KEYS = {
    "out-parameter": "out_parameter",
    "derive": "derive",
    "derive-attributes": "derive_attributes",
    "inspect": "inspect",
    "inspect-receivers": "inspect_receivers",
    "store-methods": "store_methods",
    "finalizers": "finalizers",
}


def _merge(models: ModelSet, matching: str, name: str, update: CallModel) -> None:
    table = models.by_last_name if matching == "last-name" else models.by_qualified
    old = table.get(name, CallModel())
    table[name] = CallModel(
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
        status_index=update.status_index if update.status else old.status_index,
    )


def _load_file(path: Path, models: ModelSet) -> None:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ModelError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ModelError(f"{path}: not UTF-8: {exc.reason} at byte {exc.start}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ModelError(f"{path}: not valid TOML: {exc}") from None
    top = _Reader(path, "", data)
    meta = _Reader(path, "[model]", top.get("model", dict, required=True))
    name = meta.get("name", str, required=True)
    meta.get("description", str, "")
    reference = meta.get("reference", str)
    if reference is not None:
        models.references[name] = reference
    matching = meta.get("match", str, "last-name")
    if matching not in ("last-name", "qualified"):
        meta.fail("match", "must be 'last-name' or 'qualified'")
    raises = meta.get("raises", bool, True)
    status_index = meta.get("status", int)
    success = meta.get("success", list)
    if status_index is not None and success is None:
        meta.fail("status", "needs `success` (the values that mean success)")
    models.success.update(success or ())
    status = success is not None
    meta.done()
    before = set(models.by_last_name) | set(models.by_qualified)
    for i, raw in enumerate(top.get("create", "tables", [])):
        r = _Reader(path, f"[[create]][{i}]", raw)
        fns = r.get("functions", list, required=True)
        out = r.get("out", int)
        result = r.get("result", int)
        if (out is None) == (result is None):
            r.fail("out" if out is not None else "", "needs one of `out` and `result`")
        if result is not None and status_index is None and (status or result != 0):
            r.fail("result", "a returned handle needs `status` in [model] (without a status, `result = 0`)")
        kind = r.get("kind", str, "handle")
        released = tuple(r.get("released-by", list, []))
        key, counted = r.get("key", int), r.get("counted", bool, False)
        r.done()
        for fn in fns:
            create = Create(fn, out, kind, released, name, result, key, counted)
            _merge(models, matching, fn, CallModel(creates=(create,), status=status, status_index=status_index))
    for i, raw in enumerate(top.get("release", "tables", [])):
        r = _Reader(path, f"[[release]][{i}]", raw)
        methods = r.get("methods", list)
        if methods is not None:
            of = tuple(r.get("of", list, required=True))
            r.done()
            for m in methods:
                models.release_methods[m] = models.release_methods.get(m, ()) + of
            continue
        fns = r.get("functions", list, required=True)
        key = r.get("key", int)
        handle = r.get("handle", int, required=key is None)
        r.done()
        for fn in fns:
            release = Release(fn, -1 if handle is None else handle, name, key)
            call = CallModel(release=release, status=status, status_index=status_index)
            _merge(models, matching, fn, call)
    own_raw = top.get("ownership", dict)
    ownership = Ownership()
    if own_raw is not None:
        o = _Reader(path, "[ownership]", own_raw)
        ownership = Ownership(
            keywords=tuple(o.get("keywords", list, [])),
            fields=tuple(o.get("fields", list, [])),
            handle_fields=tuple(o.get("handle-fields", list, [])),
            keep=tuple(o.get("keep", list, [])),
            transfer=tuple(o.get("transfer", list, [])),
            guard_modules=tuple(o.get("guard-modules", list, [])),
        )
        for fn in o.get("backend-input", list, []):
            _merge(models, matching, fn, CallModel(record=True))
        o.done()
    for i, raw in enumerate(top.get("adopt", "tables", [])):
        r = _Reader(path, f"[[adopt]][{i}]", raw)
        fns = r.get("functions", list, required=True)
        handle = r.get("handle", int, 0)
        kind = r.get("owner-kind", str, "owner")
        checks = dict(
            non_empty_keywords=tuple(r.get("non-empty-keywords", list, [])),
            empty_constructor_suffixes=tuple(r.get("empty-constructor-suffixes", list, [])),
            property_keywords=tuple(r.get("property-keywords", list, [])),
            forbidden_properties=tuple(r.get("forbidden-properties", list, [])),
            native_memory_only=r.get("native-memory-only", bool, False),
            fixed=r.get("ownership", str, ""),
        )
        if checks["fixed"] not in ("", "keep", "transfer"):
            r.fail("ownership", "must be 'keep' or 'transfer'")
        r.done()
        if own_raw is None and not checks["fixed"]:
            r.fail("", "an [[adopt]] needs an [ownership] table in the same file, or a fixed `ownership`")
        for fn in fns:
            _merge(models, matching, fn, CallModel(adopt=Adopt(fn, handle, kind, ownership, name, **checks)))
    for i, raw in enumerate(top.get("borrow", "tables", [])):
        r = _Reader(path, f"[[borrow]][{i}]", raw)
        fns = r.get("functions", list, required=True)
        owner = r.get("owner", int, -1)
        method = r.get("method", str, "none")
        if method not in ("none", "tracked", "any"):
            r.fail("method", "must be 'none', 'tracked' or 'any'")
        unsupported = tuple(r.get("unsupported-owner-kinds", list, []))
        thread_safe = r.get("thread-safe", bool, False)
        r.done()
        for fn in fns:
            b = Borrow(fn, owner, method, unsupported, ownership.guard_modules, name, thread_safe)
            _merge(models, "last-name", fn, CallModel(borrow=b))
    for i, raw in enumerate(top.get("borrow-attribute", "tables", [])):
        r = _Reader(path, f"[[borrow-attribute]][{i}]", raw)
        attrs = r.get("attributes", list, required=True)
        steps = r.get("path", "path", [])
        kinds = tuple(r.get("owner-kinds", list, []))
        r.done()
        for attr in attrs:
            b = Borrow(attr, -1, "tracked", (), ownership.guard_modules, name)
            models.borrow_attributes[attr] = BorrowAttribute(b, tuple(steps), kinds)
    for i, raw in enumerate(top.get("submit", "tables", [])):
        r = _Reader(path, f"[[submit]][{i}]", raw)
        fns = r.get("functions", list, required=True)
        sub = dict(
            arguments=tuple(r.get("arguments", "ints", [])),
            argument_keywords=tuple(r.get("argument-keywords", list, [])),
            dependencies=r.get("dependencies", int, -1),
            dependency_keywords=tuple(r.get("dependency-keywords", list, [])),
        )
        r.done()
        for fn in fns:
            models.submits[fn] = Submit(fn, model=name, **sub)
    for i, raw in enumerate(top.get("owner", "tables", [])):
        r = _Reader(path, f"[[owner]][{i}]", raw)
        fns = r.get("functions", list, required=True)
        kind = r.get("owner-kind", str, "object")
        r.done()
        for fn in fns:
            _merge(models, matching, fn, CallModel(owner_kind=kind))
    mem_raw = top.get("memory", dict)
    if mem_raw is not None:
        r = _Reader(path, "[memory]", mem_raw)
        mem = models.memory
        for key in (
            "page-size",
            "page-size-calls",
            "page-size-sysconf",
            "page-size-sysconf-names",
            "aligned",
            "unaligned",
            "read-only",
            "read-only-keywords",
            "read-only-methods",
            "array-type-modules",
            "views",
            "from-buffer-methods",
            "addressof",
            "char-pointer",
            "address-attributes",
            "address-methods",
            "view-modules",
            "view-methods",
            "close-methods",
            "keeps-alive",
        ):
            getattr(mem, key.replace("-", "_")).update(r.get(key, list, []))
        mem.array_interface = r.get("array-interface", str, mem.array_interface)
        mem.descriptor_pattern = r.get("descriptor-pattern", str, mem.descriptor_pattern)
        try:
            mem.descriptor_re = re.compile(mem.descriptor_pattern) if mem.descriptor_pattern else None
        except re.error as error:
            r.fail("descriptor-pattern", f"not a regular expression: {error}")
        mem.chain_field = r.get("chain-field", str, mem.chain_field)
        for item in mem.read_only_keywords:
            if "=" not in item:
                r.fail("read-only-keywords", f"'{item}' is not of the form keyword=VALUE")
        r.done()
    merge = lambda fn, call: _merge(models, "last-name", fn, call)  # noqa: E731
    load_maps(models, top, lambda where, raw: _Reader(path, where, raw), merge, status, status_index, name)
    for section, target in (
        ("capsules", models.capsules),
        ("threads", models.threads),
        ("host-task", models.host_task),
        ("environment", models.environment),
        ("async", models.asynchronous),
    ):
        raw_section = top.get(section, dict)
        if raw_section is not None:
            _load_sets(_Reader(path, f"[{section}]", raw_section), target)
    if not raises:
        # every function this file models returns a status code instead of raising
        added = (set(models.by_last_name) | set(models.by_qualified)) - before
        models.non_raising.update(q.rpartition(".")[2] for q in added)
    values = top.get("values", dict)
    if values is not None:
        v = _Reader(path, "[values]", values)
        for key, attr in _VALUE_KEYS.items():
            getattr(models, attr).update(v.get(key, list, []))
        prefixes = v.get("inspect-prefixes", list, [])
        models.inspect_prefixes = tuple(sorted(set(models.inspect_prefixes) | set(prefixes)))
        v.done()
    top.done()


def _load_sets(r: _Reader, target: object) -> None:
    """Fill a section's fields: lists of names into sets, strings into strings,
    tables of strings into dicts."""
    for key in list(r.table):
        attr = key.replace("-", "_")
        current = getattr(target, attr, None)
        if isinstance(current, set):
            current.update(r.get(key, list, []))
        elif isinstance(current, str):
            setattr(target, attr, r.get(key, str, current))
        elif isinstance(current, dict):
            table = r.get(key, dict, {})
            for k, v in table.items():
                if not isinstance(v, str):
                    r.fail(key, f"the value of '{k}' must be a string")
            current.update(table)
    r.done()


def load_models(extra: Iterable[Path] = ()) -> ModelSet:
    """The built-in models plus `extra` user model files, validated."""
    models = ModelSet()
    files = sorted(builtin_model_dir().glob("*.toml")) + [Path(p) for p in extra]
    for path in files:
        _load_file(path, models)
        models.files.append(path)
    models.forbidden = models.forbidden_properties()
    return models


__all__ = [
    "Adopt",
    "AsyncModel",
    "Borrow",
    "BorrowAttribute",
    "CallModel",
    "CapsuleModel",
    "Create",
    "EnvModel",
    "HostTaskModel",
    "MapCall",
    "MemoryModel",
    "ModelError",
    "ModelSet",
    "Ownership",
    "Release",
    "Submit",
    "ThreadModel",
    "builtin_model_dir",
    "load_models",
]
