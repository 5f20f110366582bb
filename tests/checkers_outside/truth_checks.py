"""A checker from outside ownlint that keeps facts of its own (issue 30, point 7): a handle released and
then still bound and tested as a truth value (`zeMemFree(ctx, p)` ... `if p:`). The test passes (the
variable still holds the address, a non-zero integer, or a live-looking wrapper), and the code behind
it goes on as if the handle were valid.

It needs no engine change: it subscribes to the release and to the branch assumptions, and remembers
per path which objects it saw released (its own fact, `Released`), through the `Findings` it is given.
"""

from __future__ import annotations

from dataclasses import dataclass

from ownlint.engine.events import Assume, Checker, Findings, Release
from ownlint.rule import Rule

TESTED = Rule(
    code="XRL201",
    name="released-handle-tested",
    severity="warning",
    summary="A released handle is still bound and is tested as a truth value.",
    what_it_does="""
Reports a test of a handle's truth (`if p:`, `while not p:`) on a path where the handle was already
released and the name still holds it.
""",
    why_bad="""
Releasing a handle does not change the variable: it still holds the address or the wrapper, which is
true, so `if p:` takes the branch meant for a live handle. Set the variable to `None` after the release.
""",
    invalid=(
        """
from ze import *


def finish(ctx, p, log):
    zeMemFree(ctx, p)
    if p:  # E: XRL201
        log("still holding a handle")
""",
        """
from ze import *


def finish(ctx, p, done, log):
    if done:
        zeMemFree(ctx, p)
    while not p:  # E: XRL201
        log("released on one path")
""",
    ),
    valid=(
        """
from ze import *


def finish(ctx, p, log):
    zeMemFree(ctx, p)
    p = None
    if p:
        log("still holding a handle")
""",
        """
from ze import *


def finish(ctx, p, q, log):
    zeMemFree(ctx, p)
    p = q
    if p:
        log("holding another handle")
""",
        """
from ze import *


def release(ctx, p):
    if p:
        zeMemFree(ctx, p)
""",
        """
from ze import *


def finish(ctx, p, done, log):
    if done:
        zeMemFree(ctx, p)
        p = None
    while not p:
        log("released on one path, and forgotten there")
""",
    ),
    known_limits="Only a test of the name itself (`if p:`) is seen, not `if p is not None:` nor `if bool(p):`.",
    references="",
)


@dataclass(frozen=True, slots=True)
class Released:
    """This checker's fact about an object: released on this path."""


class ReleasedThenTested(Checker):
    rules = (TESTED,)

    def on_release(self, e: Release, out: Findings) -> None:
        out.set_fact(e.obj, Released())

    def on_assume(self, e: Assume, out: Findings) -> None:
        if e.obj is not None and out.fact(e.obj) == Released():
            out.report(
                "XRL201", e.node, e.node, (("message", "`{handle}` was released, and is tested as a truth value"),)
            )
