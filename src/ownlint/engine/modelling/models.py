"""API models as data: the TOML files under `rules/` (and the user's).

The format is documented in `rules/README.md`. Loading validates every key:
a bad file is a `ModelError` whose text is one line naming the file and the
key. The engine asks a `ModelSet` what a callee does; it never names an API.

This module loads and validates the files; the data classes they fill are in
model_types.py (and exported from here too).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from pathlib import Path

from ownlint.engine.modelling import effects as fx
from ownlint.engine.modelling.model_calls import Entry, read_call, tables
from ownlint.engine.modelling.model_derive import LAST_NAME_EFFECTS, FileContext, add_entry
from ownlint.engine.modelling.model_legacy import (
    SECTIONS,
    read_legacy,
    read_legacy_consumers,
    read_legacy_maps,
    read_legacy_owned,
)
from ownlint.engine.modelling.model_reader import ModelError, ModelWarning, TableReader
from ownlint.engine.modelling.model_types import (
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
    ThreadModel,
)
from ownlint.engine.modelling.name_pattern import NamePattern, PatternError
from ownlint.inputs import MAX_MODEL_BYTES, InputError, parse_toml, read_regular


def builtin_model_dir() -> Path:
    here = Path(__file__).resolve().parents[2]  # src/ownlint (engine/modelling/models.py)
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
    "expects-raise": "raising_blocks",
    "no-return": "no_return",
    "ends-process": "ends_process",
}


def _check_reference_url(meta: TableReader, url: str) -> None:
    """`reference-url`: an https address, with at most one `{name}` (the call's last name)."""
    if not url.startswith("https://"):
        meta.fail("reference-url", "must start with https://")
    if any(c.isspace() or not c.isprintable() for c in url) or len(url) <= len("https://"):
        meta.fail("reference-url", "not a URL")
    rest = url.replace("{name}", "", 1)
    if "{" in rest or "}" in rest:
        meta.fail("reference-url", "at most one `{name}`, and no other braces")


def _read_file(path: Path) -> bytes:
    try:
        return read_regular(path, MAX_MODEL_BYTES)
    except InputError as exc:  # not a regular file, too large
        raise ModelError(f"{path}: {exc}") from None


def _load_file(path: Path, raw: bytes, models: ModelSet) -> list[str]:
    """Adds the models of one file (its bytes, `raw`) to `models`; what it warns of (ModelWarning)."""
    said: list[str] = []
    try:
        data = parse_toml(raw)
    except InputError as exc:  # not UTF-8, nested too deeply, not valid TOML
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
    meta.done()
    before = set(models.by_last_name) | set(models.by_qualified)
    own_raw = top.get("ownership", dict)
    ownership = Ownership()
    records: list[str] = []
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
        records = o.get("backend-input", list, [])
        o.done()
    old = [f"[[{s}]]" for s in SECTIONS if s in top.table] + (["[model].status"] if status_index is not None else [])
    file_status = fx.Status(status_index, tuple(success)) if success is not None else None
    entries = read_legacy(top, file_status)
    if records:
        entries.append(Entry("[ownership].backend-input", tuple(records), (), (fx.Record(),)))
    entries += read_legacy_owned(top, own_raw is not None)
    for i, raw in enumerate(tables(top, "call")):
        r = TableReader(path, f"[[call]][{i}]", raw)
        entry = read_call(r, tuple(success or ()))
        _check_call(r, entry, matching, own_raw is not None)
        entries.append(entry)
    entries += read_legacy_maps(top, file_status)
    entries += read_legacy_consumers(top)
    context = FileContext(name, matching, ownership)
    for entry in entries:
        add_entry(models, entry, context)
    if old:
        said.append(
            f"{path}: {', '.join(old)}: the model format before effects; it still loads, but write "
            "`[[call]]` entries instead (rules/README.md, 'Model files of the older format')"
        )
    for i, raw in enumerate(tables(top, "borrow-attribute")):
        r = TableReader(path, f"[[borrow-attribute]][{i}]", raw)
        attrs = r.get("attributes", list, required=True)
        steps = r.get("path", "path", [])
        kinds = tuple(r.get("owner-kinds", list, []))
        thread_safe = r.get("thread-safe", bool, False)
        r.done()
        for attr in attrs:
            b = Borrow(attr, -1, "tracked", (), ownership.guard_modules, name, thread_safe)
            models.borrow_attributes[attr] = BorrowAttribute(b, tuple(steps), kinds)
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
        except PatternError as error:  # the language is matched in linear time (engine/modelling/name_pattern.py)
            r.fail("descriptor-pattern", f"not a supported pattern: {error}")
        mem.chain_field = r.get("chain-field", str, mem.chain_field)
        for item in mem.read_only_keywords:
            if "=" not in item:
                r.fail("read-only-keywords", f"'{item}' is not of the form keyword=VALUE")
        r.done()
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
    return said


def _check_call(r: TableReader, entry: Entry, matching: str, has_ownership: bool) -> None:
    """What a `[[call]]` entry must agree on with its file."""
    for e in entry.effects:
        if type(e) is fx.Adopt and not e.fixed and not has_ownership:
            r.fail("effects", "an `adopt` needs an [ownership] table in the same file, or a fixed `ownership`")
    if matching == "qualified" and any(isinstance(e, LAST_NAME_EFFECTS) for e in entry.effects):
        if any(isinstance(e, (fx.Create, fx.Release, fx.Adopt, fx.Owner)) for e in entry.effects):
            r.fail(
                "effects",
                "borrows and mappings are matched by last name, creates and releases by qualified name here: "
                "give them entries of their own",
            )


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
    return load_model_files(sorted(builtin_model_dir().glob("*.toml")) + [Path(p) for p in extra])


# the model sets last made, by the paths and bytes of their files, with what their files warn of
_LOADED: dict[tuple[tuple[Path, bytes], ...], tuple[ModelSet, tuple[str, ...]]] = {}
_KEEP = 8  # sets kept: a run's configurations rarely name more than a few model lists


def load_model_files(files: Iterable[Path]) -> ModelSet:
    """The models of `files` alone, in that order, validated.

    Every check loads its models, an editor's on every keystroke, and parsing
    the bundled files is most of a small check's cost; so files whose paths and
    bytes are those of a set made before give that set (the same object: it is
    never changed once made). Each file is read every time, so an edit, as
    any change of a file's bytes, is seen at once; a file that warns
    (ModelWarning) warns on every load, as if it were parsed again."""
    read = tuple((path, _read_file(path)) for path in files)
    made = _LOADED.get(read)
    if made is None:
        models = ModelSet()
        said: list[str] = []
        for path, raw in read:
            said += _load_file(path, raw, models)
            models.files.append(path)
        models.forbidden = models.forbidden_properties()
        models.receiver_creators = models.creators_of_receivers()
        made = (models, tuple(said))
        if len(_LOADED) >= _KEEP:
            del _LOADED[next(iter(_LOADED))]  # the oldest
        _LOADED[read] = made
    for message in made[1]:
        warnings.warn(message, ModelWarning, stacklevel=2)
    return made[0]


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
    "ModelWarning",
    "Ownership",
    "Release",
    "ThreadModel",
    "builtin_model_dir",
    "load_model_files",
    "load_models",
]
