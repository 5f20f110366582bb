"""Suppression comments, read from the comment tokens of a file.

`# ownlint: ignore[OWN201, OWN203]` and `# noqa: OWN201` (also
`# noqa:OWN201,OWN203`) silence those codes on their line; a bare
`# ownlint: ignore` or `# noqa` silences every code on its line;
`# ownlint: ignore-file` on a line of its own silences the whole file. A
finding is matched on the first line of its primary span. Codes are matched
exactly (no prefixes); `ownlint:` and `noqa` may follow other text in the same
comment (`# type: ignore  # noqa: OWN201`).

Only comments count, never text inside strings. A file that `tokenize`
rejects has no suppressions (it is reported as OWN001 anyway).

For `--report-unused-suppressions`, a suppression "silenced nothing" when no
finding it matches was reported. Not reported as unused: a bare `# noqa`
(other tools read it too), codes of other tools in a `noqa` list (`E501`),
and codes that are not enabled for the file (nothing could have matched).
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ownlint.diagnostics import Diagnostic

BARE_IGNORE = "ownlint: ignore"
IGNORE_FILE = "ownlint: ignore-file"

_OWNLINT = re.compile(r"#\s*ownlint:\s*ignore(?P<file>-file\b)?(?:\[(?P<codes>[^\]]*)\])?(?![-\w\[])", re.IGNORECASE)
_NOQA = re.compile(
    r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?(?![-\w])",
    re.IGNORECASE,
)
_OWN_CODE = re.compile(r"OWN[0-9]+")


@dataclass(frozen=True, slots=True)
class Suppression:
    """One suppression comment: `codes` None silences every code on `line`."""

    line: int
    column: int  # 1-based column of the directive's "#"
    codes: tuple[str, ...] | None
    bare_noqa: bool = False  # a bare "# noqa": never reported as unused


@dataclass(frozen=True, slots=True)
class UnusedSuppression:
    """A suppression that silenced nothing: `what` is a code, "ownlint: ignore" or "ownlint: ignore-file"."""

    path: str
    line: int
    column: int
    what: str


@dataclass(frozen=True, slots=True)
class FileSuppressions:
    """Every suppression comment of one file."""

    lines: tuple[Suppression, ...] = ()
    whole_file: Suppression | None = None

    def silences(self, diagnostic: Diagnostic) -> Suppression | None:
        """The suppression that silences `diagnostic`, if any."""
        if self.whole_file is not None:
            return self.whole_file
        for suppression in self.lines:
            if suppression.line == diagnostic.span.line and (
                suppression.codes is None or diagnostic.code in suppression.codes
            ):
                return suppression
        return None


def parse_suppressions(source: str) -> FileSuppressions:
    """The suppression comments of `source`; none when it cannot be tokenized."""
    lines: list[Suppression] = []
    whole_file: Suppression | None = None
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type != tokenize.COMMENT:
                continue
            line, column = token.start
            found, ignores_file = _suppressions_in(token.string, line, column + 1)
            lines.extend(found)
            on_own_line = token.line[:column].strip() == ""
            if ignores_file and on_own_line and whole_file is None:
                whole_file = Suppression(line, column + 1, None)
    except (tokenize.TokenError, SyntaxError):
        return FileSuppressions()
    return FileSuppressions(tuple(lines), whole_file)


def _suppressions_in(comment: str, line: int, column: int) -> tuple[list[Suppression], bool]:
    """The line suppressions in one comment, and whether it says `ownlint: ignore-file`."""
    found: list[Suppression] = []
    ignores_file = False
    for match in _OWNLINT.finditer(comment):
        if match["file"]:
            ignores_file = True
        else:
            codes = None if match["codes"] is None else _codes(match["codes"])
            found.append(Suppression(line, column + match.start(), codes))
    for match in _NOQA.finditer(comment):
        if match["codes"] is None:
            found.append(Suppression(line, column + match.start(), None, bare_noqa=True))
        else:
            found.append(Suppression(line, column + match.start(), _codes(match["codes"])))
    return found, ignores_file


def _codes(text: str) -> tuple[str, ...]:
    return tuple(code.upper() for code in re.split(r"[\s,]+", text.strip()) if code)


def apply_suppressions(
    diagnostics: Iterable[Diagnostic], suppressions: FileSuppressions
) -> tuple[list[Diagnostic], set[tuple[int, str]]]:
    """The diagnostics no comment silences, and what was used: (comment line, code) pairs."""
    kept: list[Diagnostic] = []
    used: set[tuple[int, str]] = set()
    for diagnostic in diagnostics:
        suppression = suppressions.silences(diagnostic)
        if suppression is None:
            kept.append(diagnostic)
        else:
            used.add((suppression.line, diagnostic.code))
    return kept, used


def unused_suppressions(
    path: str,
    suppressions: FileSuppressions,
    used: set[tuple[int, str]],
    is_enabled: Callable[[str], bool],
) -> list[UnusedSuppression]:
    """The suppressions of one file that silenced nothing (see the module's docstring for what is left out)."""
    unused: list[UnusedSuppression] = []
    whole_file = suppressions.whole_file
    if whole_file is not None:
        if not any(line == whole_file.line for line, _ in used):
            unused.append(UnusedSuppression(path, whole_file.line, whole_file.column, IGNORE_FILE))
        return unused
    for suppression in suppressions.lines:
        used_here = {code for line, code in used if line == suppression.line}
        if suppression.codes is None:
            if not suppression.bare_noqa and not used_here:
                unused.append(UnusedSuppression(path, suppression.line, suppression.column, BARE_IGNORE))
            continue
        for code in suppression.codes:
            if _OWN_CODE.fullmatch(code) and is_enabled(code) and code not in used_here:
                unused.append(UnusedSuppression(path, suppression.line, suppression.column, code))
    return unused
