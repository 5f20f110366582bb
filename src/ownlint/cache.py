"""The result cache: a component's reports, keyed on everything they depend on.

A key hashes ownlint's version, the model files' contents, the engine
options, and the path, module and content of every file of the component
(so a changed helper invalidates its callers' results). Entries are JSON
with a checksum, written to a temporary file and renamed into place, so two
runs at once never see half an entry; an entry that does not verify is
treated as missing and rewritten. The directory carries its own
`.gitignore`, so git never sees it.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from ownlint import __version__
from ownlint.diagnostics import FileReport, report_from_dict, report_to_dict
from ownlint.engine.sources import EngineOptions, SourceFile

CACHE_DIR = ".ownlint_cache"


class Cache:
    def __init__(self, root: Path, model_files: Iterable[Path], options: EngineOptions) -> None:
        self.dir = root / CACHE_DIR / f"v{__version__}"
        salt = hashlib.sha256(f"{__version__}\0{options!r}".encode())
        for path in model_files:
            try:
                salt.update(path.read_bytes())
            except OSError:
                salt.update(str(path).encode())
        self.salt = salt.hexdigest()
        self.hits = 0
        self.misses = 0

    def key(self, files: Iterable[SourceFile], kind: str = "component") -> str:
        h = hashlib.sha256(f"{self.salt}\0{kind}".encode())
        for f in files:
            h.update(f"\0{f.path}\0{f.module}\0".encode())
            h.update(hashlib.blake2b(f.source.encode("utf-8", "surrogatepass"), digest_size=16).digest())
        return h.hexdigest()

    def _file(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.json"

    def get(self, key: str) -> list[FileReport] | None:
        path = self._file(key)
        try:
            raw = path.read_bytes()
        except OSError:
            self.misses += 1
            return None
        try:
            envelope = json.loads(raw)
            body = envelope["reports"]
            if envelope["checksum"] != _checksum(body):
                raise ValueError("checksum mismatch")
            reports = [report_from_dict(r) for r in body]
        except (ValueError, KeyError, TypeError):
            # truncated or corrupted: rebuild it
            try:
                path.unlink()
            except OSError:
                pass
            self.misses += 1
            return None
        self.hits += 1
        return reports

    def put(self, key: str, reports: list[FileReport]) -> None:
        body = [report_to_dict(r) for r in reports]
        data = json.dumps({"checksum": _checksum(body), "reports": body}, separators=(",", ":"))
        path = self._file(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            ignore = self.dir.parent / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# created by ownlint\n*\n", encoding="utf-8")
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(data)
            os.replace(tmp, path)
        except OSError:
            pass  # a cache that cannot be written only costs time


def _checksum(body: object) -> str:
    return hashlib.sha256(json.dumps(body, separators=(",", ":"), sort_keys=True).encode()).hexdigest()
