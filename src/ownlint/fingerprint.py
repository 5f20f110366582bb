"""What identifies a finding without its line number: baselines and SARIF fingerprints.

A finding is keyed on its path, its code, the name of the handle it is about
(`Diagnostic.handle`) and the text of the line it is reported on with runs of
whitespace collapsed. Lines added or removed elsewhere in the file, and
re-indentation, leave the key alone; editing the reported line itself changes
it. Findings with identical keys in one file are told apart by their
occurrence index (1, 2, ... in source order).

Known limits: two identical lines reporting the same code on the same handle
swap their indexes when a third identical one is inserted above them, e.g.
three `zeMemFree(ctx, p)` lines in one function.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ownlint.diagnostics import Diagnostic
from ownlint.lines import line_at


@dataclass(frozen=True, slots=True, order=True)
class FindingKey:
    path: str
    code: str
    handle: str  # "" when the finding names no handle
    text: str  # the reported line, whitespace collapsed


def normalise(line: str) -> str:
    """`line` with leading and trailing whitespace removed and inner runs collapsed to one space."""
    return " ".join(line.split())


def finding_key(diagnostic: Diagnostic, sources: Mapping[str, str], path: str | None = None) -> FindingKey:
    """The key of `diagnostic`; `path` replaces its displayed path (baselines key on their own relative paths)."""
    text = line_at(sources.get(diagnostic.path, ""), diagnostic.span.line)
    return FindingKey(
        path if path is not None else diagnostic.path, diagnostic.code, diagnostic.handle or "", normalise(text)
    )


def with_occurrences(keys: Iterable[FindingKey]) -> list[tuple[FindingKey, int]]:
    """Each key with its 1-based occurrence index among the identical keys before it."""
    seen: Counter[FindingKey] = Counter()
    out: list[tuple[FindingKey, int]] = []
    for key in keys:
        seen[key] += 1
        out.append((key, seen[key]))
    return out


def line_hash(key: FindingKey, occurrence: int) -> str:
    """`<16 hex digits>:<occurrence>`, the shape GitHub gives its own `primaryLocationLineHash`."""
    material = f"{key.code}\0{key.path}\0{key.handle}\0{key.text}"
    digest = hashlib.sha256(material.encode("utf-8", "surrogateescape")).hexdigest()[:16]  # a name not UTF-8
    return f"{digest}:{occurrence}"
