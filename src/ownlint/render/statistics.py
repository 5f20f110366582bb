"""`--statistics`: how many findings of each code, instead of the findings themselves."""

from __future__ import annotations

import json
from collections import Counter

from ownlint.api import RunResult
from ownlint.lines import printable
from ownlint.render import error_line, name_of, severity_of


def counts(result: RunResult) -> list[tuple[str, int]]:
    """(code, count), most frequent first, then by code."""
    counter = Counter(d.code for d in result.findings)
    return sorted(counter.items(), key=lambda item: (-item[1], item[0]))


def render(result: RunResult, *, as_json: bool = False) -> str:
    """Aligned lines `count  code  name` (file errors follow, control characters escaped), or a JSON list of objects."""
    rows = counts(result)
    if as_json:
        table = [{"code": c, "name": name_of(c), "severity": severity_of(c), "count": n} for c, n in rows]
        return json.dumps(table, indent=2) + "\n"
    width = max((len(str(n)) for _, n in rows), default=1)
    lines = [printable(f"{n:>{width}}  {code}  {name_of(code)}".rstrip()) for code, n in rows]
    lines += [error_line(e) for e in result.errors]
    return "\n".join(lines) + "\n" if lines else ""
