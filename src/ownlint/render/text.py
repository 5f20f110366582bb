"""`--format text`: rustc-style frames.

```
error[OWN201]: `host` is freed a second time
  --> examples/double_free.py:31:5
   |
30 |     zeMemFree(hctx, host)
   |     --------------------- first freed here
31 |     zeMemFree(hctx, host)
   |     ^^^^^^^^^^^^^^^^^^^^^ freed again here
   |
   = help: release each handle in exactly one place ...
   = help: <the fix, when the rule offers one>: `ownlint check --fix` does it
   = note: see Level Zero specification ...
   = note: `ownlint explain OWN201` shows the rule's documentation
```

Related spans in the same file share the frame, in line order; related spans
in another file get a frame of their own (`::: path:line:col`). In a notebook
(`ownlint.notebook`) a cell counts as a file: positions read
`path:cell 4:1:1`, the gutter numbers the lines of the cell, and related
spans in another cell get a frame of their own. Colour is the
console's business: the caller builds a `Console` without colour when output
is piped or `NO_COLOR` is set.

Everything taken from the analysed files (source lines, paths, messages,
labels) is shown through `ownlint.lines.printable`: control characters as
`cat -v` shows them (`^[`, `M-^[`), bidi controls as `<U+202E>`, and the
underlines are placed on the escaped line. Text is handed to rich as `Text`
objects, never as markup, so a `[red]` or `[/]` in a source line is shown as
it is.

Known limits: a span over several lines is underlined on its first line only;
a tab counts as four columns; wide (East Asian) characters misalign the
underline.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from rich.console import Console
from rich.text import Text

from ownlint.api import RunResult
from ownlint.diagnostics import Diagnostic, Span
from ownlint.lines import printable, split_lines
from ownlint.notebook import NotebookIndex
from ownlint.render import error_line, location, rule_of, severity_of, summary_line, unused_line

TAB = "    "
_SEVERITY_STYLE = {"error": "bold red", "warning": "bold yellow"}
_GUTTER = "bold blue"


@dataclass(frozen=True, slots=True)
class _Annotation:
    span: Span
    label: str
    primary: bool


def render(result: RunResult, console: Console, *, show_unused: bool = False, summary: bool = True) -> None:
    """Print file errors, one frame per finding, unused suppressions on request, and the summary."""
    for error in result.errors:
        console.print(Text(error_line(error), style="bold red"))
    if result.errors and result.findings:
        console.print()
    lines_of = _Lines(result.sources)
    for diagnostic in result.findings:
        # one print per finding: rich's cost is per call, not per character
        console.print(Text("\n").join(frame(diagnostic, lines_of, result.notebooks)), end="\n\n")
    if show_unused:
        for unused in result.unused_suppressions:
            console.print(Text(unused_line(unused, result.notebooks), style="yellow"))
    if summary:
        console.print(Text(summary_line(result, show_unused=show_unused), style="bold"))


class _Lines(dict[str, list[str]]):
    """The lines of each analysed file, split the first time a finding shows that file."""

    def __init__(self, sources: dict[str, str]) -> None:
        super().__init__()
        self.sources = sources

    def __missing__(self, path: str) -> list[str]:
        lines = split_lines(self.sources[path]) if path in self.sources else []
        self[path] = lines
        return lines


def frame(
    diagnostic: Diagnostic, lines_of: dict[str, list[str]], notebooks: Mapping[str, NotebookIndex] | None = None
) -> list[Text]:
    """The lines showing one finding (`lines_of`: the source lines of each file, by path; `notebooks`:
    `RunResult.notebooks`)."""
    notebooks = notebooks or {}
    severity = severity_of(diagnostic.code)
    style = _SEVERITY_STYLE.get(severity, "bold red")
    place = _Place(notebooks)
    primary = place.of(diagnostic.path, diagnostic.span)
    here = [_Annotation(diagnostic.span, diagnostic.label or "", True)]
    here += [_Annotation(r.span, r.message, False) for r in diagnostic.related if place.of(r.path, r.span) == primary]
    elsewhere = [r for r in diagnostic.related if place.of(r.path, r.span) != primary]
    spans = [(diagnostic.path, diagnostic.span), *((r.path, r.span) for r in diagnostic.related)]
    pad = " " * max(len(str(place.number(path)(span.line))) for path, span in spans)

    header = Text()
    header.append(f"{severity}[{diagnostic.code}]", style=style)
    header.append(f": {printable(diagnostic.message)}", style="bold")
    out = [header, _location(pad, "-->", diagnostic.path, diagnostic.span, notebooks)]
    out += _snippet(pad, lines_of[diagnostic.path], here, style, place.number(diagnostic.path))
    for related in elsewhere:
        where = _location(pad, ":::", related.path, related.span, notebooks)
        annotation = _Annotation(related.span, related.message, False)
        snippet = _snippet(pad, lines_of[related.path], [annotation], style, place.number(related.path))
        if not snippet:
            where.append(f": {printable(related.message)}")
        out += [where, *snippet]
    out.append(_gutter(pad))
    if diagnostic.help:
        out.append(_note(pad, "help", diagnostic.help))
    if diagnostic.fix is not None:
        how = "--fix" if diagnostic.fix.applicability == "safe" else "--fix --unsafe-fixes"
        out.append(_note(pad, "help", f"{diagnostic.fix.message}: `ownlint check {how}` does it"))
    rule = rule_of(diagnostic.code)
    if diagnostic.reference:
        out.append(_note(pad, "note", f"see {diagnostic.reference}."))
    elif rule is not None and rule.references.strip():  # written over several lines: one line here
        out.append(_note(pad, "note", f"see {' '.join(rule.references.split())}"))
    if diagnostic.reference_url:  # a line of its own, nothing after it: terminals make it a link
        out.append(_note(pad, "note", f"the API's documentation: {diagnostic.reference_url}"))
    out.append(_note(pad, "note", f"`ownlint explain {diagnostic.code}` shows the rule's documentation"))
    return out


@dataclass(frozen=True, slots=True)
class _Place:
    """What shares a frame: a file, or a cell of a notebook; and how the gutter numbers its lines."""

    notebooks: Mapping[str, NotebookIndex]

    def of(self, path: str, span: Span) -> tuple[str, int]:
        index = self.notebooks.get(path)
        return (path, index.cell_of(span.line)[0] if index is not None else 0)

    def number(self, path: str) -> Callable[[int], int]:
        """The number the gutter shows for a line of `path`: the line in its cell, in a notebook."""
        index = self.notebooks.get(path)
        if index is None:
            return _same
        return lambda line: index.cell_of(line)[1]


def _same(line: int) -> int:
    return line


def _styled(content: str, style: str) -> Text:
    """A text whose first part is styled; what is appended later keeps its own style."""
    text = Text()
    text.append(content, style=style)
    return text


def _gutter(pad: str, number: str = "") -> Text:
    return _styled(f"{number or pad} |", _GUTTER)


def _location(pad: str, arrow: str, path: str, span: Span, notebooks: Mapping[str, NotebookIndex]) -> Text:
    text = _styled(f"{pad}{arrow} ", _GUTTER)
    text.append(printable(location(path, span.line, span.column, notebooks)))
    return text


def _note(pad: str, kind: str, message: str) -> Text:
    text = _styled(f"{pad} = ", _GUTTER)
    text.append(f"{kind}:", style="bold")
    text.append(f" {printable(message)}")
    return text


def _snippet(
    pad: str,
    lines: list[str],
    annotations: list[_Annotation],
    primary_style: str,
    number_of: Callable[[int], int] = _same,
) -> list[Text]:
    """The source lines the annotations point at, each followed by its underlines; `...` marks a gap."""
    shown = sorted({a.span.line for a in annotations if 1 <= a.span.line <= len(lines)})
    if not shown:
        return []
    out = [_gutter(pad)]
    previous: int | None = None
    for number in shown:
        if previous is not None and number - previous > 1:
            out.append(_styled("...", _GUTTER))
        source = lines[number - 1]
        row = _gutter(pad, str(number_of(number)).rjust(len(pad)))
        row.append(f" {_shown(source)}".rstrip())
        out.append(row)
        on_line = [a for a in annotations if a.span.line == number]
        for annotation in sorted(on_line, key=lambda a: (a.span.column, not a.primary)):
            out.append(_underline(pad, source, annotation, primary_style))
        previous = number
    return out


def _underline(pad: str, source: str, annotation: _Annotation, primary_style: str) -> Text:
    span = annotation.span
    start = min(max(span.column - 1, 0), len(source))
    end = span.end_column - 1 if span.end_line == span.line else len(source)
    end = min(max(end, start), len(source))
    offset = len(_shown(source[:start]))
    length = max(len(_shown(source[start:end])), 1)
    marker, style = ("^", primary_style) if annotation.primary else ("-", _GUTTER)
    text = _gutter(pad)
    text.append(" " + " " * offset)
    text.append(marker * length + (f" {printable(annotation.label)}" if annotation.label else ""), style=style)
    return text


def _shown(source: str) -> str:
    """Source text as the frame quotes it: control characters escaped, a tab as four spaces."""
    return printable(source).replace("\t", TAB)
