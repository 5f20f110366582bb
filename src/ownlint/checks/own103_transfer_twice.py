"""OWN103 transfer-twice."""

from ownlint.checks.base import Check, via_suffix
from ownlint.engine.violations import Violation
from ownlint.registry import Rule

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
    example="""
compute_q = make_queue(hq, ctx, device=dev)
copy_q = make_queue(hq, ctx, device=dev)      # OWN103
""",
    use_instead="""
compute_q = make_queue(hq, ctx, device=dev)
copy_q = make_queue(hq, ctx, device=dev, ownership=ownership.keep)   # or a second native queue
""",
    known_limits="""
A second `make_*` with `keep` of a transferred handle is a use (OWN101, or
OWN102 when the first owner is dead), not this rule.
""",
    references="SYCL Level-Zero backend specification 4.4.1.",
)


def describe(v: Violation) -> tuple[str, str, str]:
    h = v.handle or "the handle"
    return (
        f"`{h}` is transferred to a second SYCL object{via_suffix(v)}",
        "transferred again here",
        "adopt a native handle with `transfer` once; give any second object `ownership=keep`",
    )


CHECK = Check(RULE, describe)
