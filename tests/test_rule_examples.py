"""Every rule's examples are tests (Fixit's VALID / INVALID): ownlint reports in
each INVALID example exactly the lines marked `# E: OWNnnn`, and nothing, not
even an error entry, in each VALID one. Each example is checked alone, as a
fixture file is (tests/test_fixtures.py), with the default configuration
(a preview rule's examples also select the rule).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from test_fixtures import EXPECT, difference, expectations

from ownlint import api, runner
from ownlint.config import default_config
from ownlint.registry import all_rules, example_source, shown

Case = tuple[str, str, int]  # (rule code, "invalid" or "valid", index)
Triple = tuple[str, int, str]  # (path, line, code)


def cases() -> list[Case]:
    found: list[Case] = []
    for rule in all_rules().values():
        found += [(rule.code, "invalid", i) for i in range(len(rule.invalid))]
        found += [(rule.code, "valid", i) for i in range(len(rule.valid))]
    return found


def _id(case: Case) -> str:
    return "-".join(map(str, case))


def check(
    text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, select: tuple[str, ...] = ()
) -> tuple[set[Triple], set[Triple], dict[Triple, str]]:
    """(expected, reported, messages) for one example, as (path, line, code) triples
    (`select`: codes selected besides the default ones)."""
    name = "example.py"
    source = example_source(text)
    (tmp_path / name).write_text(source, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(runner, "ISOLATE", False)  # in this process, as tests/test_fixtures.py's check_fixture says why
    config = default_config(tmp_path)
    result = api.check_paths([tmp_path / name], replace(config, select=(*config.select, *select)))
    assert not result.errors, "\n".join(f"{e.path}: {e.message}" for e in result.errors)
    reported = {(d.path, d.span.line, d.code) for d in result.findings}
    messages = {(d.path, d.span.line, d.code): d.message for d in result.findings}
    return expectations(source, name), reported, messages


@pytest.mark.parametrize("case", cases(), ids=_id)
def test_example(case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, kind, index = case
    rule = all_rules()[code]
    text = (rule.invalid if kind == "invalid" else rule.valid)[index]
    expected, reported, messages = check(text, tmp_path, monkeypatch, (code,) if rule.preview else ())
    if kind == "invalid":
        assert rule.code in {c for _, _, c in expected}, f"an INVALID example of {rule.code} marks no {rule.code}"
    else:
        assert not expected, "a VALID example has no `# E:` line"
    assert reported == expected, "\n" + difference(expected, reported, messages, root=tmp_path)


@pytest.mark.parametrize("code", all_rules())
def test_every_rule_has_both_kinds_of_example(code: str) -> None:
    rule = all_rules()[code]
    assert rule.invalid, f"{rule.code} has no INVALID example"
    assert rule.valid, f"{rule.code} has no VALID example"


@pytest.mark.parametrize("code", all_rules())
def test_documentation_shows_every_example_without_its_markers(code: str) -> None:
    rule = all_rules()[code]
    docs = rule.markdown()
    assert not EXPECT.search(docs), "`# E:` markers are for the tests, not the reader"
    example, use_instead = docs.split("\n## Use instead\n")
    for text in rule.invalid:
        assert f"```python\n{shown(text)}\n```" in example
        assert f"# {rule.code}" in shown(text)
    for text in rule.valid:
        assert f"```python\n{shown(text)}\n```" in use_instead


def test_markers_read_as_comments_naming_the_rule() -> None:
    rule = all_rules()["OWN201"]
    assert "zeMemFree(hctx, scratch)  # E: OWN201" in rule.invalid[0]
    assert "zeMemFree(hctx, scratch)  # OWN201\n" in rule.markdown()
