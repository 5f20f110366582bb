"""Jupyter notebooks (`.ipynb`, nbformat 4) as one Python source, and its positions as cell and line.

As Ruff does, the code cells of a notebook are joined, in order, into one
source that is analysed like a module (so a handle allocated in one cell and
freed in two others is a double free), and each line of that source remembers
its cell and its line in the cell (`NotebookIndex`). Findings keep their
positions in the joined source; the renderers and the language server show
them as cell and line (`cell 4:1:1`). Cells are numbered from 1 among all the
cells of the notebook, markdown and raw ones included, as Jupyter lists them.

Markdown and raw cells are left out. IPython's escapes are turned into
Python that keeps every line and every column of the code around them:

- a line magic (`%matplotlib inline`), a shell line (`!pip install x`) and a
  help line (`obj?`, `??obj`) become an empty line (`pass`, keeping the
  indentation, inside a block), and so do the lines a trailing `\\` joins to
  them;
- `%time`, `%timeit` and `%prun` followed directly by a statement (no
  options) keep the statement: `%time x = f()` becomes `0;    x = f()`;
- `x = !ls` and `x = %cmd` become `x = 0`, so that `x` stays bound;
- a cell magic whose body is Python (`%%time`, `%%timeit`, `%%capture`, ...)
  loses its first line only; any other (`%%bash`, `%%writefile`, `%%html`)
  blanks its whole cell.

A line is taken for an escape only where a statement can start: not inside a
string, brackets or a continued line (`_Scanner`). A notebook whose metadata
names another language than Python (`language_info.name` or
`kernelspec.language`) has no code to check.

Known limits: a statement left open at the end of a cell (an unclosed
bracket) runs on into the next cell, which Jupyter would reject; the
f-strings of Python 3.12 that nest the same quotes (`f"{d["k"]}"`) confuse
the scanner, which may then miss an escape on the lines after them.
"""

from __future__ import annotations

import bisect
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ownlint.diagnostics import FileError

SUFFIX = ".ipynb"

# cell magics whose body is Python (the list Ruff keeps, from IPython's own)
_PYTHON_CELL_MAGICS = frozenset({"capture", "debug", "prun", "pypy", "python", "python3", "time", "timeit"})
# line magics that run the Python statement that follows them
_STATEMENT_MAGIC = re.compile(r"%(?:time|timeit|prun) +(?=[^\s-])")
_ASSIGNED_ESCAPE = re.compile(r"([A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*)[!%]")
_HELP = re.compile(r"\?{0,2}%{0,2}[\w.*]+\?{0,2}")


class NotebookError(ValueError):
    """Text that is not a notebook ownlint can read; str() is one line."""


@dataclass(frozen=True, slots=True)
class NotebookIndex:
    """Where each line of the joined source comes from. `starts[k]` is the
    line of the joined source where the k-th code cell kept begins, and
    `cells[k]` that cell's number in the notebook (1-based)."""

    starts: tuple[int, ...]
    cells: tuple[int, ...]

    def cell_of(self, line: int) -> tuple[int, int]:
        """The cell (1-based, among all cells) and the line in it (1-based) of `line` of the joined source.
        A line past the end (a position just after the last line end) counts as the last cell's."""
        if not self.starts:
            return (1, line)
        k = max(bisect.bisect_right(self.starts, line) - 1, 0)
        return (self.cells[k], line - self.starts[k] + 1)


@dataclass(frozen=True, slots=True)
class Notebook:
    """A notebook's code cells joined into one Python source, and where each line comes from."""

    source: str
    index: NotebookIndex


def is_notebook(path: str | os.PathLike[str]) -> bool:
    return os.fspath(path).endswith(SUFFIX)


def load(path: Path, shown: str) -> Notebook | FileError:
    """The notebook at `path`, or a one-line reason why it cannot be checked (`shown` names it)."""
    try:
        data = path.read_bytes()
    except OSError as error:
        return FileError(shown, f"cannot read: {error.strerror or error}")
    return decode(data, shown)


def decode(data: bytes | str, shown: str) -> Notebook | FileError:
    """`data` (the bytes or text of an `.ipynb` file) as a notebook, or a one-line reason naming `shown`."""
    try:
        return parse(data)
    except NotebookError as error:
        return FileError(shown, str(error))


def parse(data: bytes | str) -> Notebook:
    """The code of a notebook; raises `NotebookError` when `data` is not an nbformat 4 notebook."""
    try:
        document = json.loads(data)
    except json.JSONDecodeError as error:
        raise NotebookError(
            f"not a notebook: invalid JSON ({error.msg} at line {error.lineno}, column {error.colno})"
        ) from None
    except UnicodeDecodeError as error:
        raise NotebookError(f"not a notebook: not UTF-8 ({error.reason} at byte offset {error.start})") from None
    except RecursionError:
        raise NotebookError("not a notebook: its JSON is nested too deeply") from None
    if not isinstance(document, dict):
        raise NotebookError("not a notebook: the JSON is not an object")
    version = document.get("nbformat")
    if version != 4 or isinstance(version, bool):
        found = "it has none" if version is None else f"its nbformat is {version!r}"
        raise NotebookError(f"not a notebook of nbformat 4 ({found})")
    cells = document.get("cells")
    if not isinstance(cells, list):
        raise NotebookError("not a notebook: it has no list of `cells`")
    python = _is_python(document.get("metadata"))
    code: list[str | None] = []
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict):
            raise NotebookError(f"not a notebook: cell {number} is not an object")
        source = _text_of(cell.get("source"))
        if source is None:
            raise NotebookError(f"not a notebook: cell {number} has no text")
        is_code = cell.get("cell_type") == "code" and python
        if is_code and "\x00" in source:
            raise NotebookError(f"not a notebook: cell {number} contains a NUL character")
        code.append(source if is_code else None)
    return join(code)


def join(cells: Sequence[str | None]) -> Notebook:
    """The code of a notebook's cells (in order, None for a markdown or raw cell) joined into one source."""
    lines: list[str] = []
    starts: list[int] = []
    numbers: list[int] = []
    for number, source in enumerate(cells, start=1):
        if not source:
            continue
        starts.append(len(lines) + 1)
        numbers.append(number)
        lines += _as_python(source.replace("\r\n", "\n").replace("\r", "\n").removesuffix("\n").split("\n"))
    return Notebook("".join(line + "\n" for line in lines), NotebookIndex(tuple(starts), tuple(numbers)))


def _text_of(source: object) -> str | None:
    """A cell's `source`: a string, or a list of strings (nbformat's multiline string); None otherwise."""
    if isinstance(source, str):
        return source
    if isinstance(source, list) and all(isinstance(part, str) for part in source):
        return "".join(source)
    return None


def _is_python(metadata: object) -> bool:
    """Whether the notebook's metadata leaves its language Python (the default when it names none)."""
    if not isinstance(metadata, dict):
        return True
    info: Any = metadata.get("language_info")
    kernel: Any = metadata.get("kernelspec")
    for language in (
        info.get("name") if isinstance(info, dict) else None,
        kernel.get("language") if isinstance(kernel, dict) else None,
    ):
        if isinstance(language, str) and language.strip():
            return language.strip().lower() == "python"
    return True


def _as_python(lines: list[str]) -> list[str]:
    """The lines of one code cell with IPython's escapes turned into Python (see the module's docstring)."""
    first = lines[0].strip()
    if first.startswith("%%"):
        name = first[2:].split(maxsplit=1)[0] if first[2:].strip() else ""
        if name not in _PYTHON_CELL_MAGICS:
            return [""] * len(lines)
        lines = ["", *lines[1:]]
    out: list[str] = []
    scanner = _Scanner()
    escaped: str | None = None  # the line before was an escape continued with a trailing backslash: its blank
    for line in lines:
        if escaped is not None:
            out.append(escaped)
            escaped = escaped if line.endswith("\\") else None
            continue
        if scanner.at_statement_start():
            code = line.lstrip()
            indent = line[: len(line) - len(code)]
            replaced = _unescaped(indent, code)
            if replaced is not None:
                escaped = _blank(line) if code.endswith("\\") else None
                out.append(replaced)
                scanner.feed(replaced)
                continue
        out.append(line)
        scanner.feed(line)
    return out


def _unescaped(indent: str, code: str) -> str | None:
    """The Python for a line that is an IPython escape (`code` without its indentation); None if it is not one."""
    statement = _STATEMENT_MAGIC.match(code)
    if statement is not None:
        width = statement.end()
        return indent + "0;" + " " * (width - 2) + code[width:]
    assigned = _ASSIGNED_ESCAPE.match(code)
    if assigned is not None:
        return indent + assigned.group(1) + "0"
    if code.startswith(("%", "!", "?")) or ("?" in code and _HELP.fullmatch(code.rstrip())):
        return _blank(indent + code)
    return None


def _blank(line: str) -> str:
    """An escape's line as a statement that does nothing: empty at the top level, `pass` in a block."""
    code = line.lstrip()
    return line[: len(line) - len(code)] + "pass" if code and line[0] in " \t" else ""


class _Scanner:
    """Follows strings, brackets and backslash continuations over lines of Python, to tell where a new
    statement may start (IPython looks for escapes only there). Comments end at the line's end."""

    def __init__(self) -> None:
        self.quote = ""  # the open string's quote: ', ", ''' or """; "" outside strings
        self.depth = 0
        self.continued = False

    def at_statement_start(self) -> bool:
        return not self.quote and self.depth == 0 and not self.continued

    def feed(self, line: str) -> None:
        i = 0
        self.continued = False
        while i < len(line):
            char = line[i]
            if self.quote:
                if char == "\\":
                    i += 2
                    continue
                if line.startswith(self.quote, i):
                    i += len(self.quote)
                    self.quote = ""
                    continue
            elif char == "#":
                break
            elif char in "'\"":
                triple = char * 3
                self.quote = triple if line.startswith(triple, i) else char
                i += len(self.quote)
                continue
            elif char in "([{":
                self.depth += 1
            elif char in ")]}":
                self.depth = max(self.depth - 1, 0)
            elif char == "\\" and i == len(line) - 1:
                self.continued = True
            i += 1
        if len(self.quote) == 1:
            self.continued = line.endswith("\\")  # a string continued with a backslash; otherwise it ends here
            if not self.continued:
                self.quote = ""


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+', re.DOTALL)
_LINE_END = re.compile(r"\r\n|\r|\n")


class JsonPlaces:
    """Where the text of each cell lies in a notebook's JSON text: for an editor that shows that text
    (the language server, when an `.ipynb` file is opened as a text document). Read from the JSON's
    tokens, so any layout works; each escape (`\\"`, `\\u00e9`, a surrogate pair) counts as the one
    character it stands for."""

    def __init__(self, text: str) -> None:
        self.json_lines = [0, *(m.end() for m in _LINE_END.finditer(text))]
        self.cells: dict[int, tuple[list[int], list[int]]] = {}  # cell -> (its lines' starts, offsets in text)
        for cell, tokens in _source_tokens(text).items():
            offsets: list[int] = []
            decoded: list[str] = []
            for start, token in tokens:
                _decode(token, start, decoded, offsets)
            offsets.append(tokens[-1][0] + len(tokens[-1][1]) - 1 if tokens else 0)  # the closing quote
            source = "".join(decoded)
            self.cells[cell] = ([0, *(m.end() for m in _LINE_END.finditer(source))], offsets)

    def at(self, cell: int, line: int, column: int) -> tuple[int, int] | None:
        """The 1-based line and column in the JSON text of `column` on `line` of `cell`; None: not found."""
        found = self.cells.get(cell)
        if found is None or not 1 <= line <= len(found[0]):
            return None
        starts, offsets = found
        offset = offsets[min(starts[line - 1] + max(column, 1) - 1, len(offsets) - 1)]
        json_line = bisect.bisect_right(self.json_lines, offset)
        return json_line, offset - self.json_lines[json_line - 1] + 1


def _source_tokens(text: str) -> dict[int, list[tuple[int, str]]]:
    """The string tokens (offset, token) of each cell's `source`, by cell number: `cells[i].source`, a
    string or an array of them. A text that is not JSON gives what was found before it goes wrong."""
    found: dict[int, list[tuple[int, str]]] = {}
    stack: list[list[Any]] = []  # per open container: ["{", key, awaiting a key] or ["[", index]
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        top = stack[-1] if stack else None
        if token in "{[":
            stack.append(["{", None, True] if token == "{" else ["[", 0])
        elif token in "}]":
            if stack:
                stack.pop()
        elif token == ",":
            if top is not None and top[0] == "[":
                top[1] += 1
            elif top is not None:
                top[2] = True
        elif token == ":":
            if top is not None and top[0] == "{":
                top[2] = False
        elif top is not None and top[0] == "{" and top[2]:
            top[1] = token[1:-1] if token.startswith('"') else None
        elif token.startswith('"'):
            cell = _source_cell(stack)
            if cell is not None:
                found.setdefault(cell, []).append((match.start(), token))
    return found


def _source_cell(stack: list[list[Any]]) -> int | None:
    """The cell number when the open containers are those of `cells[i].source` (or an array in it)."""
    keys = [frame[1] for frame in stack]
    if len(stack) in (3, 4) and stack[0][0] == "{" and keys[0] == "cells" and stack[1][0] == "[":
        if stack[2][0] == "{" and keys[2] == "source" and (len(stack) == 3 or stack[3][0] == "["):
            return int(keys[1]) + 1
    return None


def _decode(token: str, start: int, decoded: list[str], offsets: list[int]) -> None:
    """Appends each character a JSON string token stands for, and the offset in the text where it is written."""
    i = 1
    while i < len(token) - 1:
        offsets.append(start + i)
        if token[i] != "\\":
            decoded.append(token[i])
            i += 1
        elif token[i + 1] == "u":
            code = int(token[i + 2 : i + 6], 16) if re.fullmatch(r"[0-9a-fA-F]{4}", token[i + 2 : i + 6]) else 0xFFFD
            width = 6
            low = token[i + 8 : i + 12]
            if (
                0xD800 <= code < 0xDC00
                and token[i + 6 : i + 8] == "\\u"
                and re.fullmatch(r"[dD][c-fC-F][0-9a-fA-F]{2}", low)
            ):
                code = 0x10000 + ((code - 0xD800) << 10) + (int(low, 16) - 0xDC00)
                width = 12
            decoded.append(chr(code))
            i += width
        else:
            decoded.append(_ESCAPED.get(token[i + 1], token[i + 1]))
            i += 2


_ESCAPED = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f"}
