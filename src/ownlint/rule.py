"""One rule's record: its documentation (Ruff's sections) and its INVALID / VALID
examples (Fixit's), and how the documentation shows them.

A leaf: it imports nothing of `ownlint.checks`, which declares each rule with
it, nor of `ownlint.registry`, which collects them all from `ownlint.checks`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DOCS_URL = "https://github.com/ownlint/ownlint/blob/main/docs/rules.md#{anchor}"

# `# E: OWN201` on a line of an INVALID example: ownlint must report OWN201
# there (tests/test_rule_examples.py; the syntax of tests/fixtures)
EXPECTED = re.compile(r"#\s*E:\s*(?=OWN[0-9]+)")


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
        for heading, examples in (("Example", self.invalid), ("Use instead", self.valid)):
            if examples:
                parts += ["", f"## {heading}"]
                for text in examples:
                    parts += ["", "```python", shown(text), "```"]
        if self.known_limits.strip():
            parts += ["", "## Known limits", "", self.known_limits.strip()]
        if self.references.strip():
            parts += ["", "## References", "", self.references.strip()]
        return "\n".join(parts) + "\n"


def example_source(text: str) -> str:
    """An example as the module it is: without the blank line that opens its string."""
    return text.lstrip("\n")


def shown(text: str) -> str:
    """An example as the documentation shows it: `# E: OWN201` reads `# OWN201`."""
    return EXPECTED.sub("# ", example_source(text).rstrip("\n"))
