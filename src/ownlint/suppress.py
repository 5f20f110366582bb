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

from ownlint.diagnostics import Diagnostic, Edit, Span
from ownlint.lines import split_lines

BARE_IGNORE = "ownlint: ignore"
IGNORE_FILE = "ownlint: ignore-file"

_OWNLINT = re.compile(r"#\s*ownlint:\s*ignore(?P<file>-file\b)?(?:\[(?P<codes>[^\]]*)\])?(?![-\w\[])", re.IGNORECASE)
_NOQA = re.compile(
    r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?(?![-\w])",
    re.IGNORECASE,
)
_OWN_CODE = re.compile(r"OWN[0-9]+")
_MARKER = re.compile(r"ownlint|noqa", re.IGNORECASE)


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
    # no directive anywhere: skip tokenizing (most files). The lowercase test
    # is a fast superset of the case-insensitive marker (which also matches
    # a dotless or dotted capital i): only where it passes is the marker sought
    lowered = source.lower()
    if ("ownl" not in lowered and "noqa" not in lowered) or _MARKER.search(source) is None:
        return FileSuppressions()
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


def suppression_edit(source: str, line: int, code: str) -> Edit | None:
    """The edit that silences `code` on 1-based `line`: `code` merged into the line's
    `# ownlint: ignore[...]`, or `  # ownlint: ignore[CODE]` added at its end.

    None when the line is silenced already (the code is listed, or a bare
    `# ownlint: ignore` / `# noqa` is there), when the line ends inside a string
    or with a backslash (a comment cannot go there), or when there is no such line.
    """
    lines = split_lines(source)
    if not 1 <= line <= len(lines):
        return None
    text = lines[line - 1]
    tokens = _tokens(source)
    comments = [t for t in tokens or () if t.type == tokenize.COMMENT and t.start[0] == line]
    for comment in comments:
        for suppression in _suppressions_in(comment.string, line, comment.start[1] + 1)[0]:
            if suppression.codes is None or code in suppression.codes:
                return None
        match = _OWNLINT.search(comment.string)
        if match is not None and match["codes"] is not None and not match["file"]:
            start = comment.start[1] + match.start("codes")
            end = comment.start[1] + match.end("codes")
            merged = ", ".join((*_codes(match["codes"]), code))
            return Edit(Span(line, start + 1, line, end + 1), merged)
    if tokens is not None and not _ends_a_line_of_code(tokens, line):
        return None
    kept = len(text.rstrip())
    return Edit(Span(line, kept + 1, line, len(text) + 1), f"  # ownlint: ignore[{code}]")


def code_at(source: str, line: int, column: int) -> tuple[str, Span] | None:
    """The rule code at 1-based (`line`, `column`) when it stands in a suppression comment, with its span."""
    for comment in _tokens(source) or ():
        if comment.type != tokenize.COMMENT or comment.start[0] != line:
            continue
        for pattern in (_OWNLINT, _NOQA):
            for match in pattern.finditer(comment.string):
                if match["codes"] is None:
                    continue
                offset = comment.start[1] + match.start("codes")
                for found in _OWN_CODE.finditer(match["codes"].upper()):
                    start, end = offset + found.start() + 1, offset + found.end() + 1
                    if start <= column <= end:
                        return found.group(), Span(line, start, line, end)
    return None


def _tokens(source: str) -> list[tokenize.TokenInfo] | None:
    try:
        return list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return None


def _ends_a_line_of_code(tokens: Iterable[tokenize.TokenInfo], line: int) -> bool:
    """Whether a comment may end `line`: its end is a NEWLINE or NL token, not the inside of a
    string that goes on to the next line, nor a backslash continuation."""
    return any(t.type in (tokenize.NEWLINE, tokenize.NL) and t.start[0] == line for t in tokens)
