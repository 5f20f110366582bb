"""OWN002 invalid-suppression (like Ruff's RUF102 invalid-rule-code)."""

from ownlint.checks.base import Check
from ownlint.engine.violations import Violation
from ownlint.rule import Rule

RULE = Rule(
    code="OWN002",
    name="invalid-suppression",
    severity="warning",
    summary="A suppression comment names an unknown rule or stands where it silences nothing.",
    what_it_does="""
Reports a suppression comment that cannot do what it says: a rule in
`# ownlint: ignore[...]` or `# ownlint: ignore-file[...]` that is neither a
code, a prefix of codes nor a rule name ownlint knows (in a `# noqa: ...`
list, only `OWN` codes are judged: `E501` is another tool's); an
`# ownlint: ignore-file` after code on its line (it only works on a line of
its own); and `# ownlint: ignore` or `# noqa: OWN...` on a line of its own
(a finding is matched on the line it starts on, never a comment line).
""",
    why_bad="""
The comment reads as if a finding were silenced, or a file exempted, when
nothing is: a misspelt code stays in the code base and the next reader
believes the line was reviewed. A bare `# noqa` is flake8's and does not
silence ownlint at all; it is not reported (other tools read it).
""",
    invalid=(
        """
from ze import *


def release(hctx, ptr):
    zeMemFree(hctx, ptr)  # ownlint: ignore[double-fre]  # E: OWN002
""",
        """
from ze import *

x = 1  # ownlint: ignore-file  # E: OWN002
""",
    ),
    valid=(
        """
from ze import *


def release(hctx, ptr):
    zeMemFree(hctx, ptr)  # ownlint: ignore[double-free]
""",
        """
# ownlint: ignore-file[OWN601]
from ze import *

x = 1
""",
    ),
    known_limits="""
Whether a suppression silenced anything is a different question, answered on
request by `--report-unused-suppressions` (which then fails the run, as
Ruff's RUF100 does when selected).
""",
    references="Ruff's `RUF100` (unused-noqa) and `RUF102` (invalid-rule-code), which this rule follows.",
)


def describe(v: Violation) -> tuple[str, str, str]:
    return (
        v.fact("reason", "invalid suppression comment"),
        "this comment silences nothing",
        "name a rule as `ownlint rules` lists it (a code, a prefix or a name), at the end of the reported line",
    )


CHECK = Check(RULE, describe)
