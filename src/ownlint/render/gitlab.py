"""`--format gitlab`: GitLab's Code Quality report, for `artifacts: reports: codequality:`.

A JSON array of issues, the subset of the Code Climate specification GitLab
reads: `description` (code, name and message), `check_name` (the code),
`fingerprint`, `severity`, `location.path` and `location.lines` (`begin`,
`end`); `type` and `categories` (`Security` for a rule with a CWE, else `Bug
Risk`) as Code Climate has them. GitLab keeps one issue per fingerprint and
compares fingerprints between the source and target branches of a merge
request, so a fingerprint is unique in a report and does not depend on the
line number (it is the SARIF `primaryLocationLineHash`, `ownlint.fingerprint`,
hashed to GitLab's 32 hex digits).

Severity: an error is `critical` (a bug on some path), a warning `minor`.
Not here: files that could not be checked (the report has no place for them;
the exit status still says so), unused suppressions.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ownlint.api import RunResult
from ownlint.diagnostics import Diagnostic
from ownlint.fingerprint import finding_key, line_hash, with_occurrences
from ownlint.render import name_of, rule_of, severity_of

SEVERITY = {"error": "critical", "warning": "minor"}


def document(result: RunResult) -> list[dict[str, Any]]:
    """The report, before serialization."""
    keys = with_occurrences(finding_key(d, result.sources) for d in result.findings)
    return [_issue(d, line_hash(key, n)) for d, (key, n) in zip(result.findings, keys, strict=True)]


def render(result: RunResult) -> str:
    return json.dumps(document(result), indent=2, ensure_ascii=False) + "\n"


def _issue(diagnostic: Diagnostic, line_hash: str) -> dict[str, Any]:
    rule = rule_of(diagnostic.code)
    name = name_of(diagnostic.code)
    return {
        "type": "issue",
        "check_name": diagnostic.code,
        "description": f"{diagnostic.code} [{name}] {diagnostic.message}" if name else diagnostic.message,
        "categories": ["Security" if rule is not None and rule.cwe else "Bug Risk"],
        "severity": SEVERITY.get(severity_of(diagnostic.code), "critical"),
        "fingerprint": hashlib.sha256(line_hash.encode("utf-8")).hexdigest()[:32],
        "location": {
            "path": diagnostic.path,
            "lines": {"begin": diagnostic.span.line, "end": diagnostic.span.end_line},
        },
    }
