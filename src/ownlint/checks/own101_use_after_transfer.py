"""OWN101 use-after-transfer."""

from ownlint.checks.base import Check, via_suffix
from ownlint.engine.violations import Violation
from ownlint.rule import Rule

RULE = Rule(
    code="OWN101",
    name="use-after-transfer",
    severity="warning",
    summary="A native handle is used directly after `make_*` took ownership of it (transfer).",
    what_it_does="""
Reports a use of a Level Zero handle (passing it, an alias or a derived value
to a call) after a `make_*` call adopted it with ownership `transfer` (the
default), while the SYCL object that now owns it may still be alive.
""",
    why_bad="""
With `transfer` the SYCL runtime owns the handle (4.4.1) and drives it from its
own threads; Level Zero handles are not thread-safe (4.4.4), so the
application's direct calls race with the runtime's. Once the owner dies the
handle is destroyed and the same use is OWN102.
""",
    invalid=(
        """
from ze import *
from sycl.ext.oneapi import level_zero as lz

UINT64_MAX = 2**64 - 1


def adopt_queue(hq, ctx, dev):
    q = lz.make_queue(hq, ctx, device=dev)
    zeCommandQueueSynchronize(hq, UINT64_MAX)  # E: OWN101
    return q
""",
    ),
    valid=(
        """
from ze import *
from sycl.ext.oneapi import level_zero as lz

UINT64_MAX = 2**64 - 1


def adopt_queue(hq, ctx, dev):
    q = lz.make_queue(hq, ctx, device=dev, ownership=lz.ownership.keep)
    zeCommandQueueSynchronize(hq, UINT64_MAX)  # the application still owns hq
    return q
""",
    ),
    known_limits="""
An ownership ownlint cannot read (a variable with several possible values)
gives no finding. `get_native(q)` results are their own borrowed values:
using them while `q` lives is fine.
""",
    references="SYCL Level-Zero backend specification 4.4.1, 4.4.4.",
    cwe=(825,),
    security_severity=7.0,
    precision="medium",
)


def describe(v: Violation) -> tuple[str, str, str]:
    h = v.handle or "the handle"
    # the owner as its model names it (`owner-kind`: "SYCL queue", "buffer owner"), if known
    kind = v.fact("owner")
    owner = f"the {kind}" if kind else "the object that adopted it"
    return (
        f"`{h}` is used after its ownership was transferred to {owner}{via_suffix(v)}",
        "used here after the transfer",
        f"use {owner if kind else 'that object'} instead of the handle, or adopt the handle without giving up "
        "its ownership (`keep`) if the application must go on using it",
    )


CHECK = Check(RULE, describe)
