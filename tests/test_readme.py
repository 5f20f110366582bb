"""The README's rule table is the registry's (regenerate it with `ownlint rules --format markdown`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ownlint.registry import rules_markdown_table

README = Path(__file__).resolve().parent.parent / "README.md"
START = "<!-- rules:start -->"
END = "<!-- rules:end -->"


def test_rule_table_is_generated() -> None:
    text = README.read_text(encoding="utf-8")
    assert text.count(START) == 1 and text.count(END) == 1, f"README.md needs one {START} ... {END} block"
    table = text.split(START, 1)[1].split(END, 1)[0]
    assert table.strip() == rules_markdown_table().strip(), "run `ownlint rules --format markdown` and paste it"


def test_rule_documents_are_generated() -> None:
    from ownlint.registry import own_rules, rules_document

    docs = README.parent / "docs" / "rules.md"
    assert docs.read_text(encoding="utf-8") == rules_document(), "run `ownlint rules --format docs > docs/rules.md`"
    for rule in own_rules().values():  # every rule has its section, with its weakness linked
        assert f"\n## {rule.code} {rule.name}\n" in docs.read_text(encoding="utf-8")
        for cwe in rule.cwe:
            assert f"(https://cwe.mitre.org/data/definitions/{cwe}.html)" in rule.markdown()


def test_no_address_of_a_repository_that_does_not_exist() -> None:
    # there is no public repository yet (issue 35): nothing a user reads or a tool uploads names one
    root = README.parent
    shipped = [*(root / "src" / "ownlint").rglob("*.py"), *(root / "rules").glob("*"), root / "docs" / "rules.md"]
    assert any(path.suffix == ".toml" for path in shipped)
    for path in shipped:
        assert "github.com/ownlint" not in path.read_text(encoding="utf-8"), path


def test_nothing_in_src_cites_documents_users_do_not_have() -> None:
    """The specification documents (API.md, RULES.md, STYLE.md) are not shipped:
    text a user reads cites public specifications and the rule's page only."""
    src = README.parent / "src" / "ownlint"
    cited = [
        f"{path.relative_to(src)}:{n}"
        for path in sorted(src.rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if any(doc in line for doc in ("API.md", "RULES.md", "STYLE.md"))
    ]
    assert cited == []


def test_every_configuration_key_is_in_the_readme_table() -> None:
    from ownlint.config import _KNOWN_KEYS

    text = README.read_text(encoding="utf-8")
    for key in _KNOWN_KEYS:
        assert f"\n| `{key}` |" in text, key


# the first major of each action that runs on Node.js 24 (GitHub moves every
# action off Node.js 20 in 2026): an older one warns on every run, then fails
CURRENT_MAJORS = {"actions/checkout": 5, "actions/setup-python": 6, "github/codeql-action/upload-sarif": 4}


def test_the_github_workflow_has_the_permissions_code_scanning_needs_and_current_actions() -> None:
    yaml = pytest.importorskip("yaml", reason="PyYAML comes with pre-commit")
    text = README.read_text(encoding="utf-8")
    [block] = [b for b in text.split("```yaml\n")[1:] if b.startswith("# .github/workflows/ownlint.yml")]
    workflow = yaml.safe_load(block.split("```", 1)[0])
    [job] = workflow["jobs"].values()
    assert job["permissions"] == {"actions": "read", "contents": "read", "security-events": "write"}
    used = {step["uses"].split("@")[0]: step["uses"].split("@")[1] for step in job["steps"] if "uses" in step}
    assert used.keys() == CURRENT_MAJORS.keys()
    for action, major in CURRENT_MAJORS.items():
        assert re.fullmatch(r"v\d+", used[action]) and int(used[action][1:]) >= major, (action, used[action])
