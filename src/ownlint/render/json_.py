"""`--format json`: exactly the object INTERFACE.md documents, one finding a line.

`unused_suppressions` is added only when `--report-unused-suppressions` is
given, so that the documented keys stay the only keys otherwise.

A file name that is not UTF-8 cannot be a JSON string as it is: its `path`
shows each byte that does not decode as `\\xff` (as the text output does), and
`path_base64` beside it holds the name's bytes exactly (base64). Only such
names get a `path_base64`, so the output is valid UTF-8 JSON whatever the
names and the documented keys stay the only keys otherwise.

In a notebook (`ownlint.notebook`), `line` and `end_line` are lines of its
code cells joined, as the positions of fix edits are; a finding also has
`cell` (1-based, among all the notebook's cells), `cell_line` and
`cell_end_line` (lines in that cell), a related location `cell` and
`cell_line`, an unused suppression `cell` and `cell_line`.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Mapping
from typing import Any

from ownlint import __version__
from ownlint.api import RunResult
from ownlint.diagnostics import Diagnostic, Fix
from ownlint.lines import escape_undecodable
from ownlint.notebook import NotebookIndex
from ownlint.render import name_of, severity_of


def path_fields(path: str) -> dict[str, str]:
    """`{"path": ...}`, and `"path_base64"` for a name that is not UTF-8 (see the module's docstring)."""
    shown = escape_undecodable(path)
    if shown == path:
        return {"path": path}
    return {"path": shown, "path_base64": base64.b64encode(os.fsencode(path)).decode("ascii")}


def finding(diagnostic: Diagnostic, notebooks: Mapping[str, NotebookIndex] | None = None) -> dict[str, Any]:
    span = diagnostic.span
    notebooks = notebooks or {}
    return {
        "code": diagnostic.code,
        "name": name_of(diagnostic.code),
        "severity": severity_of(diagnostic.code),
        **path_fields(diagnostic.path),
        "line": span.line,
        "column": span.column,
        "end_line": span.end_line,
        "end_column": span.end_column,
        **_cell_lines(notebooks.get(diagnostic.path), span.line, span.end_line),
        "message": escape_undecodable(diagnostic.message),
        "related": [
            {
                **path_fields(r.path),
                "line": r.span.line,
                "column": r.span.column,
                **_cell_lines(notebooks.get(r.path), r.span.line),
                "message": escape_undecodable(r.message),
            }
            for r in diagnostic.related
        ],
        "fix": _fix(diagnostic.fix),
        **_reference(diagnostic),
    }


def _cell_lines(index: NotebookIndex | None, line: int, end_line: int | None = None) -> dict[str, int]:
    """`cell` and `cell_line` (and `cell_end_line` when `end_line` is given) in a notebook; nothing elsewhere.
    An end in a later cell (a statement left open at a cell's end runs on) is counted on from the start's
    line, as if its cell went on."""
    if index is None:
        return {}
    cell, in_cell = index.cell_of(line)
    out = {"cell": cell, "cell_line": in_cell}
    if end_line is not None:
        end_cell, end_in_cell = index.cell_of(end_line)
        out["cell_end_line"] = end_in_cell if end_cell == cell else in_cell + (end_line - line)
    return out


def _reference(diagnostic: Diagnostic) -> dict[str, str]:
    """`reference` and `reference_url` (the API of the call involved, and its page), where known."""
    out = {}
    if diagnostic.reference:
        out["reference"] = escape_undecodable(diagnostic.reference)
    if diagnostic.reference_url:
        out["reference_url"] = diagnostic.reference_url
    return out


def _fix(fix: Fix | None) -> dict[str, Any] | None:
    if fix is None:
        return None
    return {
        "applicability": fix.applicability,
        "message": fix.message,
        "edits": [
            {
                "line": e.span.line,
                "column": e.span.column,
                "end_line": e.span.end_line,
                "end_column": e.span.end_column,
                "content": e.content,
            }
            for e in fix.edits
        ],
    }


def document(result: RunResult, *, show_unused: bool = False) -> dict[str, Any]:
    """The JSON object, before serialization."""
    out: dict[str, Any] = {
        "version": __version__,
        "findings": [finding(d, result.notebooks) for d in result.findings],
        "errors": [{**path_fields(e.path), "message": escape_undecodable(e.message)} for e in result.errors],
        # no timings: two runs on the same input give the same bytes
        "summary": {"files": len(result.files), "findings": len(result.findings)},
    }
    if show_unused:
        out["unused_suppressions"] = [
            {
                **path_fields(u.path),
                "line": u.line,
                "column": u.column,
                **_cell_lines(result.notebooks.get(u.path), u.line),
                "suppression": u.what,
            }
            for u in result.unused_suppressions
        ]
    return out


# the C encoder (it is not used when indenting): each list entry on a line of its own
_ONE_LINE = json.JSONEncoder(separators=(", ", ": "))


def render(result: RunResult, *, show_unused: bool = False) -> str:
    """The object with its keys on lines of their own and each entry of its
    lists (each finding, each error) on one line: easy to read, to grep and to
    diff, and written by `json`'s C encoder (indenting every level goes through
    its Python one, several times slower on a large run)."""
    parts = []
    for key, value in document(result, show_unused=show_unused).items():
        if isinstance(value, list) and value:
            text = "[\n" + ",\n".join("    " + _ONE_LINE.encode(v) for v in value) + "\n  ]"
        else:
            text = _ONE_LINE.encode(value)
        parts.append(f"  {_ONE_LINE.encode(key)}: {text}")
    return "{\n" + ",\n".join(parts) + "\n}\n"
