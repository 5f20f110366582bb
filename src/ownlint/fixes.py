"""Applying the fixes that rules offer (`ownlint check --fix`).

A fix is applied whole or not at all. Only safe fixes are applied unless
unsafe ones are allowed. When the edits of two fixes overlap (or insert at the
same place), the one that starts first in the file wins and the other is left
for the next round: the caller re-checks the fixed files and fixes again, as
Ruff does. Edits are applied from the bottom of the file up, so that the
positions of the edits above stay valid.

Positions are 1-based lines and columns counted in code points, end columns
exclusive (`ownlint.diagnostics.Span`). A fix whose edits point outside the
source is skipped, not guessed at.
"""

from __future__ import annotations

import io
import tokenize
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ownlint.api import RunResult, decode_source
from ownlint.diagnostics import Diagnostic, FileError, Fix
from ownlint.lines import line_starts, split_lines

SAFE = "safe"
_BOM = "\ufeff"

_OffsetEdit = tuple[int, int, str]  # (start, end, content): offsets into the source, end exclusive


@dataclass(frozen=True, slots=True)
class FixedSource:
    """The source after fixing, and how many findings' fixes went into it."""

    source: str
    applied: int


@dataclass(slots=True)
class FixedFiles:
    """What `fix_files` did: findings fixed, the files written, the files it could not write."""

    applied: int = 0
    files: list[str] = field(default_factory=list)
    errors: list[FileError] = field(default_factory=list)


def is_applicable(fix: Fix, unsafe: bool) -> bool:
    return fix.applicability == SAFE or unsafe


def apply_fixes(source: str, diagnostics: Iterable[Diagnostic], *, unsafe: bool = False) -> FixedSource:
    """`source` with the fixes of `diagnostics` (all in this one file) applied, as far as they do not overlap."""
    lines = split_lines(source)
    starts = line_starts(source)
    offered: list[tuple[_OffsetEdit, ...]] = []
    for diagnostic in diagnostics:
        if diagnostic.fix is not None and is_applicable(diagnostic.fix, unsafe):
            edits = _offset_edits(diagnostic.fix, lines, starts)
            if edits:
                offered.append(edits)
    accepted: list[_OffsetEdit] = []
    taken: set[tuple[_OffsetEdit, ...]] = set()
    applied = 0
    for edits in sorted(offered):
        if edits in taken:  # the same fix, offered by two findings, fixes both
            applied += 1
        elif not any(_overlap(edit, other) for edit in edits for other in accepted):
            accepted.extend(edits)
            taken.add(edits)
            applied += 1
    fixed = source
    for start, end, content in sorted(accepted, reverse=True):
        fixed = fixed[:start] + content + fixed[end:]
    return FixedSource(fixed, applied)


def _offset_edits(fix: Fix, lines: Sequence[str], starts: Sequence[int]) -> tuple[_OffsetEdit, ...] | None:
    """The fix's edits as offsets, sorted; None when one of them points outside the source."""
    edits = []
    for edit in fix.edits:
        start = _offset(edit.span.line, edit.span.column, lines, starts)
        end = _offset(edit.span.end_line, edit.span.end_column, lines, starts)
        if start is None or end is None or end < start:
            return None
        edits.append((start, end, edit.content))
    return tuple(sorted(edits))


def _offset(line: int, column: int, lines: Sequence[str], starts: Sequence[int]) -> int | None:
    if 1 <= line <= len(lines) and 1 <= column <= len(lines[line - 1]) + 1:
        return starts[line - 1] + column - 1
    if line == len(lines) + 1 and column == 1 and line <= len(starts):  # just past a final line end
        return starts[line - 1]
    return None


def _overlap(a: _OffsetEdit, b: _OffsetEdit) -> bool:
    """Whether two edits touch the same text, or insert at the same place (their order would be a guess)."""
    if a[0] == a[1] == b[0] == b[1]:
        return True
    return a[0] < b[1] and b[0] < a[1]


def fix_files(result: RunResult, *, unsafe: bool = False) -> FixedFiles:
    """Apply the fixes of `result.findings` to the files they are in, and write those files.

    A file is rewritten only when its text on disk is still the text that was
    checked (`result.sources`); its byte order mark and line ends are kept.
    """
    outcome = FixedFiles()
    by_path: dict[str, list[Diagnostic]] = {}
    for diagnostic in result.findings:
        if diagnostic.fix is not None and is_applicable(diagnostic.fix, unsafe):
            by_path.setdefault(diagnostic.path, []).append(diagnostic)
    for path, diagnostics in sorted(by_path.items()):
        checked = result.sources.get(path)
        if checked is None:
            continue
        fixed = apply_fixes(checked, diagnostics, unsafe=unsafe)
        if fixed.applied == 0 or fixed.source == checked:
            continue
        error = _rewrite(Path(path), path, checked, fixed.source)
        if error is not None:
            outcome.errors.append(error)
            continue
        outcome.applied += fixed.applied
        outcome.files.append(path)
    return outcome


def _rewrite(file: Path, shown: str, checked: str, fixed: str) -> FileError | None:
    try:
        data = file.read_bytes()
    except OSError as error:
        return FileError(shown, f"cannot fix: {error.strerror or error}")
    if decode_source(data, shown) != checked:
        return FileError(shown, "not fixed: the file changed while it was being checked")
    encoded = encode_like(data, fixed)
    if encoded is None:
        return FileError(shown, "not fixed: the fixed text does not fit the file's encoding")
    try:
        file.write_bytes(encoded)
    except OSError as error:
        return FileError(shown, f"cannot fix: {error.strerror or error}")
    return None


def encode_like(original: bytes, text: str) -> bytes | None:
    """`text` encoded as the source `original` was: its coding declaration (PEP 263) or UTF-8, with its
    byte order mark if it had one; None when `text` cannot be encoded so."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(original).readline)
    except SyntaxError:  # a declaration Python rejects: the text was read as UTF-8
        encoding = "utf-8-sig" if original.startswith(_BOM.encode("utf-8")) else "utf-8"
    try:
        return text.encode(encoding)  # "utf-8-sig" writes the byte order mark back
    except (UnicodeEncodeError, LookupError):
        return None
