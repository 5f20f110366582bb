"""A Fixit rule that visits every call and reports nothing.

Fixit with only this rule enabled costs what Fixit itself costs (discovery,
parse, metadata, one traversal, worker processes) and no rule logic: the
floor of any Fixit rule. `run.py` copies this file beside the `pyproject.toml`
it writes above each corpus, which enables it as the local rule
`.fixit_noop` and disables Fixit's built-in rules.
"""

from typing import ClassVar

import libcst as cst
from fixit import Invalid, LintRule, Valid


class NoOpCall(LintRule):
    """Looks at every call, reports nothing."""

    VALID: ClassVar[list[Valid]] = [Valid("f(x)")]
    INVALID: ClassVar[list[Invalid]] = []

    def visit_Call(self, node: cst.Call) -> None:
        pass
