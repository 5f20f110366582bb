"""Baselines: the findings a project already has, recorded so that only new ones fail a run.

A baseline file is JSON:

```json
{
  "ownlint-baseline": 1,
  "findings": [
    {"path": "src/alloc.py", "code": "OWN201", "handle": "host", "text": "zeMemFree(hctx, host)", "count": 1}
  ]
}
```

Each entry is a `FindingKey` (see `ownlint.fingerprint`: no line numbers, so
edits elsewhere in the file keep it valid) with how many findings had it.
`path` is relative to the baseline file's directory, with "/", so the file
works whatever directory ownlint runs from. Entries are sorted, one a line,
so that a baseline diffs well.

Applying a baseline is a multiset difference: an entry with count 1 hides
one finding with its key; a second finding with the same key is new.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ownlint.api import RunResult
from ownlint.diagnostics import Diagnostic
from ownlint.fingerprint import FindingKey, finding_key
from ownlint.inputs import MAX_BASELINE_BYTES, InputError, parse_json, read_regular
from ownlint.lines import escape_undecodable

FORMAT_KEY = "ownlint-baseline"
FORMAT_VERSION = 1
_ENTRY_KEYS = {"path", "code", "handle", "text", "count"}
MAX_COUNT = 1 << 31


class BaselineError(ValueError):
    """A baseline file that cannot be used; str() is one line naming the file."""


def keys_for(findings: Iterable[Diagnostic], sources: Mapping[str, str], baseline_dir: Path) -> list[FindingKey]:
    """The baseline key of each finding, its path made relative to `baseline_dir`.

    A path that is not valid UTF-8 is keyed (and written) in its escaped form
    (`ownlint.lines.escape_undecodable`), so that the baseline file is UTF-8."""
    return [finding_key(d, sources, path=escape_undecodable(_relative(d.path, baseline_dir))) for d in findings]


def render(keys: Iterable[FindingKey]) -> str:
    """The baseline file's text: one entry a line, sorted."""
    counts = Counter(keys)
    entries = [
        json.dumps(
            {"path": k.path, "code": k.code, "handle": k.handle or None, "text": k.text, "count": counts[k]},
            ensure_ascii=False,
        )
        for k in sorted(counts)
    ]
    body = ",\n    ".join(entries)
    findings = f"[\n    {body}\n  ]" if entries else "[]"
    return f'{{\n  "{FORMAT_KEY}": {FORMAT_VERSION},\n  "findings": {findings}\n}}\n'


def write(path: Path, result: RunResult) -> Counter[FindingKey]:
    """Record every finding of `result` in the baseline file at `path`; what it now records."""
    keys = keys_for(result.findings, result.sources, _directory_of(path))
    try:
        path.write_text(render(keys), encoding="utf-8")
    except OSError as error:
        raise BaselineError(f"{path}: cannot write: {error.strerror or error}") from None
    return Counter(keys)


def read(path: Path) -> Counter[FindingKey]:
    """The entries of the baseline file at `path`, validated."""
    try:
        data = read_regular(path, MAX_BASELINE_BYTES)
    except InputError as error:  # missing, unreadable, not a regular file (a FIFO is never waited on), too large
        raise BaselineError(f"{path}: {error}") from None
    try:
        document = parse_json(data)
    except InputError as error:  # not JSON, nested too deeply
        raise BaselineError(f"{path}: not an ownlint baseline: {error}") from None
    if not isinstance(document, dict) or document.get(FORMAT_KEY) != FORMAT_VERSION:
        raise BaselineError(
            f'{path}: not an ownlint baseline: expected an object with "{FORMAT_KEY}": {FORMAT_VERSION}'
        )
    findings = document.get("findings")
    if not isinstance(findings, list):
        raise BaselineError(f'{path}: not an ownlint baseline: "findings" must be a list')
    keys: Counter[FindingKey] = Counter()
    for number, entry in enumerate(findings, start=1):
        key, count = _entry(entry, f"{path}: entry {number}")
        keys[key] += count
    return keys


def _entry(entry: Any, where: str) -> tuple[FindingKey, int]:
    if not isinstance(entry, dict) or set(entry) != _ENTRY_KEYS:
        raise BaselineError(f"{where}: expected an object with keys {', '.join(sorted(_ENTRY_KEYS))}")
    strings = [entry["path"], entry["code"], entry["text"]]
    handle = entry["handle"]
    count = entry["count"]
    if not all(isinstance(s, str) for s in strings) or not (handle is None or isinstance(handle, str)):
        raise BaselineError(f"{where}: path, code and text must be strings, handle a string or null")
    if not entry["path"] or not entry["code"]:
        raise BaselineError(f"{where}: path and code must not be empty")
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_COUNT:
        raise BaselineError(f"{where}: count must be a positive integer, at most {MAX_COUNT}")
    return FindingKey(entry["path"], entry["code"], handle or "", entry["text"]), count


def apply(result: RunResult, known: Counter[FindingKey], baseline_path: Path) -> RunResult:
    """`result` without the findings the baseline records (each entry hides at most `count` findings)."""
    remaining = Counter(known)
    keys = keys_for(result.findings, result.sources, _directory_of(baseline_path))
    kept: list[Diagnostic] = []
    for diagnostic, key in zip(result.findings, keys, strict=True):
        if remaining[key] > 0:
            remaining[key] -= 1
        else:
            kept.append(diagnostic)
    return replace(result, findings=kept, baselined=result.baselined + len(result.findings) - len(kept))


def _directory_of(path: Path) -> Path:
    return Path(os.path.abspath(path)).parent


def _relative(shown: str, directory: Path) -> str:
    """A displayed path (relative to the working directory, or absolute) relative to `directory`, with "/"."""
    absolute = os.path.abspath(shown)
    try:
        return Path(os.path.relpath(absolute, directory)).as_posix()
    except ValueError:  # another drive on Windows: no relative path exists
        return Path(absolute).as_posix()
