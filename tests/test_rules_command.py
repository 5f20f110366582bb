"""`ownlint rules`: the whole table whatever the terminal's width, and as JSON."""

from __future__ import annotations

import json

from cli_helpers import invoke

from ownlint.registry import all_rules


def test_piped_table_is_never_truncated() -> None:
    result = invoke("rules")
    assert result.exit_code == 0
    assert "…" not in result.stdout and "..." not in result.stdout
    for rule in all_rules().values():
        [line] = [line for line in result.stdout.splitlines() if line.startswith(rule.code)]
        assert line.split()[:3] == [rule.code, rule.name, rule.severity]
        assert line.endswith(rule.summary)


def test_rules_as_json() -> None:
    result = invoke("rules", "--format", "json")
    assert result.exit_code == 0
    rules = json.loads(result.stdout)
    assert [r["code"] for r in rules] == list(all_rules())
    double_free = next(r for r in rules if r["code"] == "OWN201")
    assert double_free == {
        "code": "OWN201",
        "name": "double-free",
        "severity": "error",
        "summary": all_rules()["OWN201"].summary,
        "cwe": [415],
        "security_severity": 8.0,
        "precision": "high",
        "preview": False,
    }
