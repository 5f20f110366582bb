"""OWN001 parse-error."""

from ownlint.checks.base import Check
from ownlint.engine.violations import Violation
from ownlint.rule import Rule

RULE = Rule(
    code="OWN001",
    name="parse-error",
    severity="error",
    summary="The file is not valid Python: nothing in it was checked.",
    what_it_does="""
Reports a file the parser rejects, at the first line it cannot read.
""",
    why_bad="""
ownlint cannot check what it cannot parse, so every other rule is silent for
this file. The interpreter would reject it too.
""",
    invalid=(
        """
from ze import *


def release(hctx, ptr)  # E: OWN001
    zeMemFree(hctx, ptr)
""",
    ),
    valid=(
        """
from ze import *


def release(hctx, ptr):
    zeMemFree(hctx, ptr)
""",
    ),
    known_limits="""
ownlint parses the Python 3 grammar that libcst supports (up to 3.12 syntax on
the libcst versions it needs); syntax newer than that is reported here even if
your interpreter accepts it. A file that names nothing ownlint knows (no
Level Zero function, `make_*`, `get_native`, `__dlpack__`, ...) and calls
nothing in the checked tree that does is not parsed at all, so its syntax
errors are not reported.
""",
    references="",
)


def describe(v: Violation) -> tuple[str, str, str]:
    reason = v.fact("reason", "invalid syntax")
    return (
        f"cannot parse: {reason}",
        "the parser stops here",
        "fix the syntax error; nothing else in this file was checked",
    )


CHECK = Check(RULE, describe)
