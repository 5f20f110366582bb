"""API models as data: the TOML files under `rules/` (and the user's).

The format is documented in `rules/README.md`. Loading validates every key:
a bad file is a `ModelError` whose text is one line naming the file and the
key. The engine asks a `ModelSet` what a callee does; it never names an API.

This module loads and validates the files; the data classes they fill are in
model_types.py (and exported from here too).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ownlint.engine.model_reader import ModelError, TableReader
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
from ownlint.engine.name_pattern import NamePattern, PatternError
from ownlint.inputs import MAX_MODEL_BYTES, InputError, parse_toml, read_regular


def builtin_model_dir() -> Path:
    here = Path(__file__).resolve().parent.parent
    packaged = here / "_rules"
    if packaged.is_dir():
        return packaged
    return here.parent.parent / "rules"  # a source checkout or an editable install


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


def _check_reference_url(meta: TableReader, url: str) -> None:
    """`reference-url`: an https address, with at most one `{name}` (the call's last name)."""
    if not url.startswith("https://"):
        meta.fail("reference-url", "must start with https://")
    if any(c.isspace() or not c.isprintable() for c in url) or len(url) <= len("https://"):
        meta.fail("reference-url", "not a URL")
    rest = url.replace("{name}", "", 1)
    if "{" in rest or "}" in rest:
        meta.fail("reference-url", "at most one `{name}`, and no other braces")


def _load_file(path: Path, models: ModelSet) -> None:
    try:
        data = parse_toml(read_regular(path, MAX_MODEL_BYTES))
    except InputError as exc:  # not a regular file, too large, nested too deeply, not valid TOML
        raise ModelError(f"{path}: {str(exc).replace('invalid TOML', 'not valid TOML')}") from None
    top = TableReader(path, "", data)
    meta = TableReader(path, "[model]", top.get("model", dict, required=True))
    name = meta.name("name")
    meta.get("description", str, "")
    reference = meta.get("reference", str)
    if reference is not None:
        models.references[name] = reference
    url = meta.get("reference-url", str)
    if url is not None:
        _check_reference_url(meta, url)
        models.reference_urls[name] = url
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
        r = TableReader(path, f"[[create]][{i}]", raw)
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
        r = TableReader(path, f"[[release]][{i}]", raw)
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
        o = TableReader(path, "[ownership]", own_raw)
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
        r = TableReader(path, f"[[adopt]][{i}]", raw)
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
        r = TableReader(path, f"[[borrow]][{i}]", raw)
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
        r = TableReader(path, f"[[borrow-attribute]][{i}]", raw)
        attrs = r.get("attributes", list, required=True)
        steps = r.get("path", "path", [])
        kinds = tuple(r.get("owner-kinds", list, []))
        r.done()
        for attr in attrs:
            b = Borrow(attr, -1, "tracked", (), ownership.guard_modules, name)
            models.borrow_attributes[attr] = BorrowAttribute(b, tuple(steps), kinds)
    for i, raw in enumerate(top.get("submit", "tables", [])):
        r = TableReader(path, f"[[submit]][{i}]", raw)
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
        r = TableReader(path, f"[[owner]][{i}]", raw)
        fns = r.get("functions", list, required=True)
        kind = r.get("owner-kind", str, "object")
        r.done()
        for fn in fns:
            _merge(models, matching, fn, CallModel(owner_kind=kind))
    mem_raw = top.get("memory", dict)
    if mem_raw is not None:
        r = TableReader(path, "[memory]", mem_raw)
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
            mem.descriptor_re = NamePattern.compile(mem.descriptor_pattern) if mem.descriptor_pattern else None
        except PatternError as error:  # the language is matched in linear time (engine/name_pattern.py)
            r.fail("descriptor-pattern", f"not a supported pattern: {error}")
        mem.chain_field = r.get("chain-field", str, mem.chain_field)
        for item in mem.read_only_keywords:
            if "=" not in item:
                r.fail("read-only-keywords", f"'{item}' is not of the form keyword=VALUE")
        r.done()
    merge = lambda fn, call: _merge(models, "last-name", fn, call)  # noqa: E731
    load_maps(models, top, lambda where, raw: TableReader(path, where, raw), merge, status, status_index, name)
    for section, target in (
        ("capsules", models.capsules),
        ("threads", models.threads),
        ("host-task", models.host_task),
        ("environment", models.environment),
        ("async", models.asynchronous),
    ):
        raw_section = top.get(section, dict)
        if raw_section is not None:
            _load_sets(TableReader(path, f"[{section}]", raw_section), target)
    if not raises:
        # every function this file models returns a status code instead of raising
        added = (set(models.by_last_name) | set(models.by_qualified)) - before
        models.non_raising.update(q.rpartition(".")[2] for q in added)
    values = top.get("values", dict)
    if values is not None:
        v = TableReader(path, "[values]", values)
        for key, attr in _VALUE_KEYS.items():
            getattr(models, attr).update(v.get(key, list, []))
        prefixes = v.get("inspect-prefixes", list, [])
        models.inspect_prefixes = tuple(sorted(set(models.inspect_prefixes) | set(prefixes)))
        v.done()
    top.done()


def _load_sets(r: TableReader, target: object) -> None:
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
