"""`--format sarif`: SARIF 2.1.0, for code-scanning uploads (GitHub's `upload-sarif`, and other viewers).

One run. `tool.driver.rules` holds every rule of the registry with its
documentation; each result points at its rule by `ruleId` and `ruleIndex`.
Paths relative to the working directory are given against the base
`%SRCROOT%` (the working directory, in `originalUriBaseIds`); paths outside it
as absolute `file:` URIs. A URI percent-encodes the bytes of the name, so a
name that is not UTF-8 is kept exactly (`bad%FF.py`); in message texts it
shows its undecodable bytes as `\\xff` (`ownlint.lines.escape_undecodable`). Lines and columns are 1-based, columns in code
points (`columnKind`), end columns exclusive, as SARIF wants.

The story of a finding (`Diagnostic.related`, then the finding itself) is
given twice: as `relatedLocations`, and as a `codeFlows` trace in story order,
which viewers step through. `partialFingerprints.primaryLocationLineHash` is
`ownlint.fingerprint.line_hash`: it does not depend on the line number, so a
finding keeps its identity across edits elsewhere in the file. Files that
could not be checked are `toolExecutionNotifications` of the invocation.

In a notebook (`ownlint.notebook`), regions are in its code cells joined
(the positions of fix edits too); each result, related location and step of
the trace carries `cell` (1-based, among all the notebook's cells) and
`cellLine` in its `properties`, and a result's message ends with
`(cell 4, line 1)`, as a viewer shows the region against the `.ipynb` file.

Not here: unused suppressions (`--report-unused-suppressions` adds nothing).
"""

from __future__ import annotations

import json
import os
import urllib.parse
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ownlint import __version__
from ownlint.api import RunResult
from ownlint.diagnostics import Diagnostic, FileError, Fix, Span
from ownlint.fingerprint import finding_key, line_hash, with_occurrences
from ownlint.lines import escape_undecodable
from ownlint.notebook import NotebookIndex
from ownlint.registry import Rule, all_rules

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"


def document(result: RunResult, *, root: Path | None = None) -> dict[str, Any]:
    """The SARIF log, before serialization; `root` is what `%SRCROOT%` stands for (default: the working directory)."""
    rules = list(all_rules().values())
    index = {rule.code: number for number, rule in enumerate(rules)}
    keys = with_occurrences(finding_key(d, result.sources) for d in result.findings)
    results = [
        _result(d, index, line_hash(key, n), result.notebooks)
        for d, (key, n) in zip(result.findings, keys, strict=True)
    ]
    base = (root if root is not None else Path.cwd()).resolve()
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "ownlint",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": [_rule(rule) for rule in rules],
                    }
                },
                "originalUriBaseIds": {SRCROOT: {"uri": base.as_uri().rstrip("/") + "/"}},
                "columnKind": "unicodeCodePoints",
                "invocations": [_invocation(result)],
                "results": results,
            }
        ],
    }


def render(result: RunResult) -> str:
    return json.dumps(document(result), indent=2, ensure_ascii=False) + "\n"


def level_of(severity: str) -> str:
    """SARIF's level for an ownlint severity ("error" or "warning")."""
    return "warning" if severity == "warning" else "error"


def _rule(rule: Rule) -> dict[str, Any]:
    """A rule with what code scanning reads to file it (GitHub's SARIF support): a
    security rule has the tag `security`, its CWE as `external/cwe/cwe-N` and a
    `security-severity`; every rule its `precision` and `problem.severity`."""
    docs = rule.markdown()
    out: dict[str, Any] = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": " ".join(rule.what_it_does.split())},
        "help": {"text": docs, "markdown": docs},
    }
    if rule.help_uri is not None:
        out["helpUri"] = rule.help_uri
    out["defaultConfiguration"] = {"level": level_of(rule.severity)}
    properties: dict[str, Any] = {
        "tags": (["security"] if rule.cwe else ["correctness"]) + [f"external/cwe/cwe-{n}" for n in rule.cwe],
        "precision": rule.precision,
        "problem.severity": rule.severity,
    }
    if rule.cwe:
        properties["security-severity"] = f"{rule.security_severity:.1f}"
    out["properties"] = properties
    return out


def _message(diagnostic: Diagnostic) -> str:
    """The message, linking each related location by its id (`[first freed here](2)`),
    which viewers turn into links to those places."""
    if not diagnostic.related:
        return diagnostic.message
    links = ", ".join(f"[{_escaped(r.message)}]({n})" for n, r in enumerate(diagnostic.related, start=1))
    return f"{_escaped(diagnostic.message)} ({links})"


def _escaped(text: str) -> str:
    """Text inside a SARIF message link: its brackets escaped, as the format asks."""
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def _result(
    diagnostic: Diagnostic, index: dict[str, int], fingerprint: str, notebooks: Mapping[str, NotebookIndex]
) -> dict[str, Any]:
    rule = all_rules().get(diagnostic.code)
    out: dict[str, Any] = {"ruleId": diagnostic.code}
    if diagnostic.code in index:
        out["ruleIndex"] = index[diagnostic.code]
    out["level"] = level_of(rule.severity if rule is not None else "error")
    cell = _cell(notebooks, diagnostic.path, diagnostic.span)
    where = f" (cell {cell['cell']}, line {cell['cellLine']})" if cell else ""
    out["message"] = {"text": escape_undecodable(_message(diagnostic)) + where}
    out["locations"] = [{"physicalLocation": _physical(diagnostic.path, diagnostic.span)}]
    if diagnostic.related:
        out["relatedLocations"] = [
            {
                "id": number,
                "physicalLocation": _physical(r.path, r.span),
                "message": {"text": escape_undecodable(r.message)},
                **_properties(_cell(notebooks, r.path, r.span)),
            }
            for number, r in enumerate(diagnostic.related, start=1)
        ]
    out["codeFlows"] = [_code_flow(diagnostic, notebooks)]
    out["partialFingerprints"] = {"primaryLocationLineHash": fingerprint}
    properties: dict[str, Any] = dict(cell)
    if diagnostic.reference:  # where the API of the call involved is specified
        properties["reference"] = escape_undecodable(diagnostic.reference)
    if diagnostic.reference_url:  # and the page documenting it
        properties["referenceUrl"] = diagnostic.reference_url
    if properties:
        out["properties"] = properties
    if diagnostic.fix is not None:
        out["fixes"] = [_fix(diagnostic.path, diagnostic.fix)]
    return out


def _cell(notebooks: Mapping[str, NotebookIndex], path: str, span: Span) -> dict[str, int]:
    """`cell` and `cellLine` of a position in a notebook; nothing elsewhere."""
    index = notebooks.get(path)
    if index is None:
        return {}
    cell, line = index.cell_of(span.line)
    return {"cell": cell, "cellLine": line}


def _properties(values: dict[str, int]) -> dict[str, Any]:
    return {"properties": values} if values else {}


def _code_flow(diagnostic: Diagnostic, notebooks: Mapping[str, NotebookIndex]) -> dict[str, Any]:
    """The story in order: where the handle was made, passed, freed ..., then where it went wrong."""
    steps = [(r.path, r.span, r.message) for r in diagnostic.related]
    steps.append((diagnostic.path, diagnostic.span, diagnostic.label or diagnostic.message))
    return {
        "threadFlows": [
            {
                "locations": [
                    {
                        "location": {
                            "physicalLocation": _physical(path, span),
                            "message": {"text": escape_undecodable(message)},
                            **_properties(_cell(notebooks, path, span)),
                        },
                        "executionOrder": order,
                    }
                    for order, (path, span, message) in enumerate(steps, start=1)
                ]
            }
        ]
    }


def _fix(path: str, fix: Fix) -> dict[str, Any]:
    return {
        "description": {"text": f"{fix.message} ({fix.applicability})"},
        "artifactChanges": [
            {
                "artifactLocation": _artifact(path),
                "replacements": [
                    {"deletedRegion": _region(edit.span), "insertedContent": {"text": edit.content}}
                    for edit in fix.edits
                ],
            }
        ],
    }


def _invocation(result: RunResult) -> dict[str, Any]:
    invocation: dict[str, Any] = {"executionSuccessful": not result.has_internal_error}
    if result.errors:
        invocation["toolExecutionNotifications"] = [_notification(e) for e in result.errors]
    return invocation


def _notification(error: FileError) -> dict[str, Any]:
    return {
        "level": "error",
        "message": {"text": escape_undecodable(f"{error.path}: {error.message}")},
        "locations": [{"physicalLocation": {"artifactLocation": _artifact(error.path)}}],
    }


def _physical(path: str, span: Span) -> dict[str, Any]:
    return {"artifactLocation": _artifact(path), "region": _region(span)}


def _artifact(path: str) -> dict[str, Any]:
    """A displayed path: relative ones against `%SRCROOT%`, absolute ones as `file:` URIs."""
    if Path(path).is_absolute():
        return {"uri": Path(path).as_uri()}
    return {"uri": urllib.parse.quote(os.fsencode(path)), "uriBaseId": SRCROOT}


def _region(span: Span) -> dict[str, int]:
    return {
        "startLine": span.line,
        "startColumn": span.column,
        "endLine": span.end_line,
        "endColumn": span.end_column,
    }
