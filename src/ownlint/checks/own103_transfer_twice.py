"""OWN103 transfer-twice."""

from ownlint.checks.base import Check, via_suffix
from ownlint.engine.violations import Violation
from ownlint.rule import Rule

RULE = Rule(
    code="OWN103",
    name="transfer-twice",
    severity="error",
    summary="The same native handle is given with ownership transfer to two `make_*` calls.",
    what_it_does="""
Reports a `make_*` call with ownership `transfer` of a handle that an earlier
`make_*` already took with `transfer`, whether or not the first owner died.
""",
    why_bad="""
Both SYCL objects believe they own the handle and both destroy it: a double
destroy inside the runtime, at a time the application does not control.
""",
    invalid=(
        """
from sycl.ext.oneapi import level_zero as lz


def make_queues(hq, ctx, dev):
    compute_q = lz.make_queue(hq, ctx, device=dev)
    copy_q = lz.make_queue(hq, ctx, device=dev)  # E: OWN103
    return compute_q, copy_q
""",
    ),
    valid=(
        """
from sycl.ext.oneapi import level_zero as lz


def make_queues(hq_compute, hq_copy, ctx, dev):
    compute_q = lz.make_queue(hq_compute, ctx, device=dev)
    copy_q = lz.make_queue(hq_copy, ctx, device=dev)  # a native queue of its own
    return compute_q, copy_q
""",
    ),
    known_limits="""
A second `make_*` with `keep` of a transferred handle is a use (OWN101, or
OWN102 when the first owner is dead), not this rule.
""",
    references="SYCL Level-Zero backend specification 4.4.1.",
    cwe=(415,),
    security_severity=8.0,
)


def describe(v: Violation) -> tuple[str, str, str]:
    h = v.handle or "the handle"
    return (
        f"`{h}` is transferred to a second owner{via_suffix(v)}",
        "transferred again here",
        "adopt a native handle with `transfer` once; let any other object adopt it without giving up its ownership (`keep`)",
    )


CHECK = Check(RULE, describe)
