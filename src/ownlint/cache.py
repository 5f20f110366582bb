"""The result cache: a component's reports, keyed on everything they depend on.

A key hashes ownlint's version, the model files' contents, the engine
options, and the path, module and content of every file of the component
(so a changed helper invalidates its callers' results). File names that are
not UTF-8 (kept as lone surrogates) are hashed losslessly.

An entry is `MAGIC`, the HMAC-SHA256 of its key and body under the user's
secret key (64 hex digits and a newline), then the body: the JSON list of
the reports (`report_to_dict`). An entry is used only if its seal verifies
and its body is exactly what `report_to_dict` writes for the reports it
decodes to; anything else (written by someone else, damaged, from another
version) is a miss, never an exception, and is replaced when the result is
written again. Where the entries live and how they are kept safe (owner-only
directories, no link followed, bounded reads): `ownlint.cachedir`; its
bounded total size: `ownlint.cacheclean`.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import warnings
from collections.abc import Iterable
from pathlib import Path

from ownlint import __version__, cacheclean, cachedir
from ownlint.cachedir import CacheUnusable, Store
from ownlint.diagnostics import FileReport, report_from_dict, report_to_dict
from ownlint.engine.program.sources import EngineOptions, SourceFile

MAGIC = b"ownlint-cache 2\n"
_MAC_DIGITS = 64
# what decoding a body that is not ownlint's may raise: it is a miss
_BAD_BODY = (ValueError, KeyError, TypeError, AttributeError, IndexError, RecursionError)


class CacheWarning(UserWarning):
    """The cache cannot be used in this run (the run goes on without it); the message says why."""


class Cache:
    def __init__(self, store: Store, root: Path, model_files: Iterable[Path], options: EngineOptions) -> None:
        """The cache of the project at `root` in `store`; raises CacheUnusable."""
        self.store = store
        self.dir = store.entries_dir(root)
        salt = hashlib.sha256(f"{__version__}\0{options!r}".encode())
        for path in model_files:
            try:
                salt.update(path.read_bytes())
            except OSError:
                salt.update(str(path).encode("utf-8", "surrogatepass"))
        self.salt = salt.hexdigest()
        self.hits = 0
        self.misses = 0
        self.written = 0

    @classmethod
    def open(
        cls, root: Path, model_files: Iterable[Path], options: EngineOptions, cache_dir: Path | None = None
    ) -> Cache | None:
        """The cache in `cache_dir` (see `cachedir.chosen_dir`), or None with a `CacheWarning` if it cannot
        be used safely."""
        try:
            return cls(Store.open(cache_dir), root, model_files, options)
        except CacheUnusable as error:
            warnings.warn(f"not using the cache: {error}", CacheWarning, stacklevel=2)
            return None

    def key(self, files: Iterable[SourceFile], kind: str = "component") -> str:
        h = hashlib.sha256(f"{self.salt}\0{kind}".encode())
        for f in files:
            h.update(f"\0{f.path}\0{f.module}\0".encode("utf-8", "surrogatepass"))
            h.update(hashlib.blake2b(f.source.encode("utf-8", "surrogatepass"), digest_size=16).digest())
        return h.hexdigest()

    def _entry(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.json"

    def get(self, key: str) -> list[FileReport] | None:
        data = cachedir.read_entry(self._entry(key))
        body = _verified_body(self.store.secret, key, data) if data is not None else None
        reports = _reports(body) if body is not None else None
        if reports is None:
            self.misses += 1
            return None
        self.hits += 1
        return reports

    def put(self, key: str, reports: list[FileReport]) -> None:
        # ensure_ascii: lone surrogates (file names that are not UTF-8) are escaped, and read back as they were
        body = json.dumps([report_to_dict(r) for r in reports], separators=(",", ":")).encode("ascii")
        data = _seal(self.store.secret, key, body)
        if len(data) <= cachedir.MAX_ENTRY_BYTES and cachedir.write_entry(self._entry(key), data):
            self.written += 1

    def finish(self) -> None:
        """After a run: keep the cache within its total size, if this run added to it."""
        if self.written:
            cacheclean.prune(self.store.path)


def _mac(secret: bytes, key: str, body: bytes) -> bytes:
    message = MAGIC + key.encode("ascii", "replace") + b"\0" + body
    return hmac.new(secret, message, hashlib.sha256).hexdigest().encode("ascii")


def _seal(secret: bytes, key: str, body: bytes) -> bytes:
    return MAGIC + _mac(secret, key, body) + b"\n" + body


def _unsealed_body(data: bytes) -> bytes | None:
    """The body of an entry, unverified (None if it is not shaped as one)."""
    if not data.startswith(MAGIC) or data[len(MAGIC) + _MAC_DIGITS : len(MAGIC) + _MAC_DIGITS + 1] != b"\n":
        return None
    return data[len(MAGIC) + _MAC_DIGITS + 1 :]


def _verified_body(secret: bytes, key: str, data: bytes) -> bytes | None:
    body = _unsealed_body(data)
    if body is None:
        return None
    seal = data[len(MAGIC) : len(MAGIC) + _MAC_DIGITS]
    return body if hmac.compare_digest(seal, _mac(secret, key, body)) else None


def _reports(body: bytes) -> list[FileReport] | None:
    """The reports of a verified body, or None unless it is exactly what `put` writes."""
    try:
        raw = json.loads(body)
        if not isinstance(raw, list) or not all(isinstance(r, dict) for r in raw):
            return None
        reports = [report_from_dict(r) for r in raw]
        if [report_to_dict(r) for r in reports] != raw:
            return None
    except _BAD_BODY:
        return None
    return reports
