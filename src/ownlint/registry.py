"""The one registry of rule codes (mypy's errorcodes.py).

Each rule is declared once, in its check module under `ownlint.checks`, with
its documentation in Ruff's sections. `ownlint rules`, `ownlint explain`, the
README table, SARIF rule metadata and the language server's hover are all
generated from these records.
"""

from __future__ import annotations

from dataclasses import dataclass

DOCS_URL = "https://github.com/ownlint/ownlint/blob/main/README.md#{anchor}"


@dataclass(frozen=True, slots=True)
class Rule:
    code: str
    name: str  # kebab-case, describes the bug
    severity: str  # "error" or "warning"
    summary: str  # one line
    what_it_does: str
    why_bad: str
    example: str
    use_instead: str
    known_limits: str
    references: str

    @property
    def help_uri(self) -> str:
        return DOCS_URL.format(anchor=f"{self.code.lower()}-{self.name}")

    def markdown(self) -> str:
        """The rule's whole documentation, as Markdown."""
        parts = [
            f"# {self.code} {self.name} ({self.severity})",
            "",
            self.summary,
            "",
            "## What it does",
            "",
            self.what_it_does.strip(),
            "",
            "## Why is this bad?",
            "",
            self.why_bad.strip(),
        ]
        if self.example.strip():
            parts += ["", "## Example", "", "```python", self.example.strip("\n"), "```"]
        if self.use_instead.strip():
            parts += ["", "## Use instead", "", "```python", self.use_instead.strip("\n"), "```"]
        if self.known_limits.strip():
            parts += ["", "## Known limits", "", self.known_limits.strip()]
        if self.references.strip():
            parts += ["", "## References", "", self.references.strip()]
        return "\n".join(parts) + "\n"


def all_rules() -> dict[str, Rule]:
    """Every rule ownlint implements, by code, in code order."""
    from ownlint.checks import RULES

    return dict(sorted((r.code, r) for r in RULES))


def rule(code: str) -> Rule:
    return all_rules()[code]


def rules_markdown_table() -> str:
    """The README's rule table."""
    lines = ["| code | name | severity | summary |", "|---|---|---|---|"]
    for r in all_rules().values():
        lines.append(f"| {r.code} | {r.name} | {r.severity} | {r.summary} |")
    return "\n".join(lines) + "\n"
