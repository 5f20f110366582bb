"""`--format junit`: JUnit XML, as Jenkins, GitLab and most CI servers read test reports.

One `testsuite` named `ownlint` with one `testcase` per checked file (named
by its path, in path order): a file with findings has one `failure` per
finding (`type` the code, `message` `line:column: message`, the text the
concise line), a file that could not be checked one `error`. The counts:
`tests` files, `failures` files with findings, `errors` files that could not
be checked. No timings: two runs on the same input give the same bytes.
Messages and paths go through `ownlint.lines.printable`: XML 1.0 cannot hold
most control characters at all.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ownlint.api import RunResult
from ownlint.diagnostics import Diagnostic
from ownlint.lines import printable
from ownlint.render import name_of


def render(result: RunResult) -> str:
    by_path: dict[str, list[Diagnostic]] = {path: [] for path in result.files}
    for d in result.findings:
        by_path.setdefault(d.path, []).append(d)
    errors = {e.path: e for e in result.errors}
    paths = sorted(by_path.keys() | errors.keys())
    suites = ET.Element("testsuites", name="ownlint")
    suite = ET.SubElement(
        suites,
        "testsuite",
        name="ownlint",
        tests=str(len(paths)),
        failures=str(sum(1 for p in paths if by_path.get(p))),
        errors=str(sum(1 for p in paths if p in errors)),
    )
    for path in paths:
        case = ET.SubElement(suite, "testcase", name=printable(path), classname="ownlint")
        if path in errors:
            ET.SubElement(case, "error", message=printable(errors[path].message), type=errors[path].kind)
        for d in by_path.get(path, []):
            where = f"{d.span.line}:{d.span.column}"
            failure = ET.SubElement(case, "failure", type=d.code, message=printable(f"{where}: {d.message}"))
            failure.text = printable(f"{d.path}:{where}: {d.code} [{name_of(d.code)}] {d.message}")
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
