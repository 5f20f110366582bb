"""OWN102 dangling-handle."""

from ownlint.checks.base import Check, via_suffix
from ownlint.engine.violations import Violation
from ownlint.rule import Rule

RULE = Rule(
    code="OWN102",
    name="dangling-handle",
    severity="error",
    summary="A native handle or pointer is used (or returned) after the object that owned it died (a SYCL or dpctl object, a torch tensor, a CuPy or numba array).",
    what_it_does="""
Reports a use of a handle whose owner is dead on some path: a handle
transferred to a `make_*` object, a `get_native(obj)` result where `obj` was
not made with `keep`, or a dpctl `obj.addressof_ref()` pointer, after the
owner's last local reference was deleted or rebound. Also a `return` of such
a handle from the function whose local owner dies there, and any use of one
taken from a temporary owner (`dpctl.SyclQueue().addressof_ref()`).
""",
    why_bad="""
When the owner dies the runtime destroys the native object (4.4.1, 4.4.3):
the handle now names freed driver state, and a later call on it crashes or
corrupts another object that reused it.
""",
    invalid=(
        """
from ze import *
from sycl.ext.oneapi import level_zero as lz

UINT64_MAX = 2**64 - 1


def run_once(hq, ctx, dev, cgf):
    q = lz.make_queue(hq, ctx, device=dev)
    q.submit(cgf)
    del q
    zeCommandQueueSynchronize(hq, UINT64_MAX)  # E: OWN102
""",
        """
from sycl.ext.oneapi import level_zero as lz


def native_queue(hq, ctx, dev):
    q = lz.make_queue(hq, ctx, device=dev)
    return lz.get_native(q)  # E: OWN102 (q dies here)
""",
    ),
    valid=(
        """
from sycl.ext.oneapi import level_zero as lz


def run_once(hq, ctx, dev, cgf):
    q = lz.make_queue(hq, ctx, device=dev)
    q.submit(cgf)
    q.wait()  # synchronize through the owner, while it lives
    del q
""",
        """
from sycl.ext.oneapi import level_zero as lz


def native_queue(hq, ctx, dev):
    q = lz.make_queue(hq, ctx, device=dev)
    return q, lz.get_native(q)  # the caller keeps q alive
""",
    ),
    known_limits="""
An owner passed to another call (other than `get_native` and inspection
built-ins) may be retained by it, so its death is never proved afterwards. A
`yield` does not end a generator's frame and is not a return. In a loop, an
owner rebound each iteration is kept one iteration back: a handle of the
owner from two iterations earlier, or one kept in a container, is forgotten:

    for w in work:
        q = dpctl.SyclQueue(dev); refs.append(q.addressof_ref())  # later uses: not reported
""",
    references="SYCL Level-Zero backend specification 4.4.1, 4.4.3.",
    runtime="yes: reading `mem._pointer` after its dpctl memory died is a segmentation fault (`runtime/examples/own102_invalid.py`)",
    cwe=(825,),
    security_severity=8.0,
)


def describe(v: Violation) -> tuple[str, str, str]:
    h = v.handle or "the handle"
    return (
        f"`{h}` dangles: the object that owned it is dead{via_suffix(v)}",
        "used here after its owner died",
        f"keep the {v.fact('owner', 'object')} that owns it alive for as long as its native handle is used",
    )


CHECK = Check(RULE, describe)
