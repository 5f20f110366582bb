"""Suppression comments, read from the comment tokens of a file.

`# ownlint: ignore[OWN201, double-free]` and `# noqa: OWN201` (also
`# noqa:OWN201,OWN203`) silence those rules on their line; a bare
`# ownlint: ignore` silences every rule on its line. `# ownlint: ignore-file`
on a line of its own silences the whole file, `# ownlint: ignore-file[OWN601]`
only those rules in it. A finding is matched on the first line of its primary
span. A rule is named by its code, a prefix of codes (`OWN2`) or, inside
`ownlint: ignore[...]`, its kebab-case name (`noqa` lists are flake8's syntax:
codes only). `ownlint:` and `noqa` may follow other text in the same comment
(`# type: ignore  # noqa: OWN201`).

A bare `# noqa` is flake8's and silences nothing here: a comment written for
another tool must not hide a double free (it hid a capsule consumed twice in
cupy's tests).

Only comments count, never text inside strings. A file that `tokenize`
rejects has no suppressions (it is reported as OWN001 anyway).

Invalid suppressions (reported as OWN002 by `ownlint.api`): an unknown rule
(in a `noqa` list only `OWN` codes, and the codes of the outside checkers
loaded, are judged: `E501` is another tool's), an
`ignore-file` after code (it would silence nothing), and a line suppression on
a line of its own (no finding starts on a comment line).

For `--report-unused-suppressions`, a suppression "silenced nothing" when no
finding it matches was reported. Not reported as unused: codes of other tools
in a `noqa` list (`E501`), and rules not enabled for the file (nothing could
have matched).
"""

from __future__ import annotations

import functools
import io
import re
import tokenize
from collections.abc import Callable, Iterable, Mapping
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
_CODE = re.compile(r"[A-Z]+[0-9]+")
_MARKER = re.compile(r"ownlint|noqa", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Suppression:
    """One suppression comment: `codes` (codes or prefixes of codes) None silences every rule."""

    line: int
    column: int  # 1-based column of the directive's "#"
    codes: tuple[str, ...] | None

    def covers(self, code: str) -> bool:
        return self.codes is None or code.startswith(self.codes)


@dataclass(frozen=True, slots=True)
class InvalidSuppression:
    """A suppression comment that cannot do what it says; `reason` is one sentence."""

    line: int
    column: int  # 1-based column of the directive's "#"
    end_column: int
    reason: str


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
    whole_file: tuple[Suppression, ...] = ()
    invalid: tuple[InvalidSuppression, ...] = ()

    def silences(self, diagnostic: Diagnostic) -> Suppression | None:
        """The suppression that silences `diagnostic`, if any."""
        for suppression in self.whole_file:
            if suppression.covers(diagnostic.code):
                return suppression
        for suppression in self.lines:
            if suppression.line == diagnostic.span.line and suppression.covers(diagnostic.code):
                return suppression
        return None


def _rule_names() -> Mapping[str, str]:
    """Every rule's code by its kebab-case name: ownlint's and the loaded outside checkers'."""
    from ownlint import outside

    return _names(len(outside.rules()))


@functools.lru_cache(maxsize=1)
def _names(outside_rules: int) -> Mapping[str, str]:
    """`_rule_names` for a number of outside rules loaded (they are only added to): read from the
    registry when a suppression names a rule."""
    from ownlint.registry import all_rules

    return {r.name: r.code for r in all_rules().values()}


def _is_known(selector: str) -> bool:
    """Whether `selector` (an upper-case code or prefix) names at least one rule."""
    return any(code.startswith(selector) for code in _rule_names().values())


def _is_code(text: str) -> bool:
    """Whether `text`, found in a suppression comment, is ownlint's code (known or not) or a loaded checker's."""
    return text.startswith("OWN") or text in _rule_names().values()


def parse_suppressions(source: str) -> FileSuppressions:
    """The suppression comments of `source`; none when it cannot be tokenized."""
    # no directive anywhere: skip tokenizing (most files). The lowercase test
    # is a fast superset of the case-insensitive marker (which also matches
    # a dotless or dotted capital i): only where it passes is the marker sought
    lowered = source.lower()
    if ("ownl" not in lowered and "noqa" not in lowered) or _MARKER.search(source) is None:
        return FileSuppressions()
    found = _Found()
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT:
                line, column = token.start
                on_own_line = token.line[:column].strip() == ""
                found.read(token.string, line, column + 1, on_own_line)
    except (tokenize.TokenError, SyntaxError):
        return FileSuppressions()
    return FileSuppressions(tuple(found.lines), tuple(found.whole_file), tuple(found.invalid))


@dataclass(slots=True)
class _Found:
    """What the comments of one file say, as they are read."""

    lines: list[Suppression]
    whole_file: list[Suppression]
    invalid: list[InvalidSuppression]

    def __init__(self) -> None:
        self.lines, self.whole_file, self.invalid = [], [], []

    def read(self, comment: str, line: int, column: int, on_own_line: bool) -> None:
        for match in _OWNLINT.finditer(comment):
            where = (line, column + match.start(), column + match.end())
            codes = None if match["codes"] is None else self._selectors(match["codes"], where, names=True)
            if match["file"] and not on_own_line:
                self._invalid(where, "`ownlint: ignore-file` after code silences nothing: put it on a line of its own")
            elif match["file"]:
                self.whole_file.append(Suppression(line, where[1], codes))
            elif on_own_line:
                self._invalid(where, _OWN_LINE)
            else:
                self.lines.append(Suppression(line, where[1], codes))
        for match in _NOQA.finditer(comment):
            if match["codes"] is None:
                continue  # flake8's bare form: not ownlint's to read
            where = (line, column + match.start(), column + match.end())
            codes = self._selectors(match["codes"], where, names=False)
            if not codes:
                continue
            if on_own_line:
                self._invalid(where, _OWN_LINE)
            else:
                self.lines.append(Suppression(line, where[1], codes))

    def _selectors(self, text: str, where: tuple[int, int, int], *, names: bool) -> tuple[str, ...]:
        """The codes or prefixes a list names (rule names as their codes); unknown ones are invalid.
        In a `noqa` list (`names` False) only `OWN` codes and the loaded outside checkers' are ownlint's."""
        selectors: list[str] = []
        for item in (part for part in re.split(r"[\s,]+", text.strip()) if part):
            code = item.upper()
            if names and item.lower() in _rule_names():
                selectors.append(_rule_names()[item.lower()])
            elif _is_known(code):
                selectors.append(code)
            elif names or code.startswith("OWN"):
                self._invalid(where, f"unknown rule {item!r} in a suppression; `ownlint rules` lists them")
        return tuple(selectors)

    def _invalid(self, where: tuple[int, int, int], reason: str) -> None:
        self.invalid.append(InvalidSuppression(where[0], where[1], where[2], reason))


_OWN_LINE = "a line suppression on a line of its own silences nothing: put it at the end of the reported line"


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
    if any(s.codes is None for s in suppressions.whole_file):
        candidates: tuple[Suppression, ...] = (
            suppressions.whole_file
        )  # the file is silent: its line comments can't be used
    else:
        candidates = (*suppressions.whole_file, *suppressions.lines)
    for suppression in candidates:
        used_here = {code for line, code in used if line == suppression.line}
        if suppression.codes is None:
            if not used_here:
                what = IGNORE_FILE if suppression in suppressions.whole_file else BARE_IGNORE
                unused.append(UnusedSuppression(path, suppression.line, suppression.column, what))
            continue
        for selector in suppression.codes:
            if _could_match(selector, is_enabled) and not any(code.startswith(selector) for code in used_here):
                unused.append(UnusedSuppression(path, suppression.line, suppression.column, selector))
    return unused


def _could_match(selector: str, is_enabled: Callable[[str], bool]) -> bool:
    """Whether some enabled rule is named by `selector`."""
    return any(is_enabled(code) for code in _rule_names().values() if code.startswith(selector))


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
        found = _Found()
        found.read(comment.string, line, comment.start[1] + 1, on_own_line=False)
        if any(suppression.covers(code) for suppression in found.lines):
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
                for found in _CODE.finditer(match["codes"].upper()):
                    start, end = offset + found.start() + 1, offset + found.end() + 1
                    if start <= column <= end and _is_code(found.group()):
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
