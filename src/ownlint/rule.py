"""One rule's record: its documentation (Ruff's sections) and its INVALID / VALID
examples (Fixit's), and how the documentation shows them.

A leaf: it imports nothing of `ownlint.checks`, which declares each rule with
it, nor of `ownlint.registry`, which collects them all from `ownlint.checks`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CWE_URL = "https://cwe.mitre.org/data/definitions/{number}.html"
PREVIEW_NOTE = (
    "This rule is in preview: it runs only where it is selected by its code"
    ' (`select = ["{code}"]`, or `--extend-select {code}`); a prefix does not turn it on.'
)

# `# E: OWN201` on a line of an INVALID example: ownlint must report OWN201
# there (tests/test_rule_examples.py; the syntax of tests/fixtures)
EXPECTED = re.compile(r"#\s*E:\s*(?=[A-Z]+[0-9]+)")


@dataclass(frozen=True, slots=True)
class Rule:
    code: str
    name: str  # kebab-case, describes the bug
    severity: str  # "error" or "warning"
    summary: str  # one line
    what_it_does: str
    why_bad: str
    # Complete, self-contained modules (Fixit's VALID / INVALID), which the
    # test suite checks: ownlint reports in each INVALID one exactly the lines
    # marked `# E: OWNnnn`, and nothing in a VALID one (the look-alike
    # correct code). The documentation shows them with `# OWNnnn`.
    invalid: tuple[str, ...]
    valid: tuple[str, ...]
    known_limits: str
    references: str
    # What running the bug on a real SYCL runtime showed, naming the program
    # under runtime/examples/ that .ci/runtime.sh runs (docs/runtime.md);
    # empty: not shown on one. The README table's "confirmed on a runtime".
    runtime: str = ""
    # The weakness the rule finds, for code scanning (SARIF `tags` and
    # `security-severity`, GitHub's scale: 7.0-8.9 high, 4.0-6.9 medium,
    # 0.1-3.9 low): the CWE numbers, none for a rule about ownlint itself
    # (parse errors, suppressions), which is then no security rule.
    cwe: tuple[int, ...] = ()
    security_severity: float = 0.0
    precision: str = "high"  # SARIF's `precision`: how often a finding is a real bug
    # Off unless selected by its exact code (Ruff's preview): a rule can land before it is quiet on every
    # project; `select = ["OWN"]`, a prefix, does not turn it on (README, "Preview rules")
    preview: bool = False

    @property
    def help_uri(self) -> str | None:
        """The page of the rule's weakness (there is no public page of ownlint's own yet), if any."""
        return CWE_URL.format(number=self.cwe[0]) if self.cwe else None

    def markdown(self) -> str:
        """The rule's whole documentation, as Markdown."""
        parts = [
            f"# {self.code} {self.name} ({self.severity}{', preview' if self.preview else ''})",
            "",
            self.summary,
            "",
        ]
        if self.preview:
            parts += [PREVIEW_NOTE.format(code=self.code), ""]
        parts += [
            "## What it does",
            "",
            self.what_it_does.strip(),
            "",
            "## Why is this bad?",
            "",
            self.why_bad.strip(),
        ]
        for heading, examples in (("Example", self.invalid), ("Use instead", self.valid)):
            if examples:
                parts += ["", f"## {heading}"]
                for text in examples:
                    parts += ["", "```python", shown(text), "```"]
        if self.known_limits.strip():
            parts += ["", "## Known limits", "", self.known_limits.strip()]
        references = self.references.strip()
        if self.cwe:
            links = ", ".join(f"[CWE-{n}]({CWE_URL.format(number=n)})" for n in self.cwe)
            references = f"{references}\n\nWeakness: {links}.".strip()
        if references:
            parts += ["", "## References", "", references]
        return "\n".join(parts) + "\n"


def example_source(text: str) -> str:
    """An example as the module it is: without the blank line that opens its string."""
    return text.lstrip("\n")


def shown(text: str) -> str:
    """An example as the documentation shows it: `# E: OWN201` reads `# OWN201`."""
    return EXPECTED.sub("# ", example_source(text).rstrip("\n"))
