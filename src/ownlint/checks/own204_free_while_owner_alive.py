"""OWN204 free-while-owner-alive."""

from ownlint.checks.base import Check, via_suffix
from ownlint.engine.violations import Violation
from ownlint.rule import Rule

RULE = Rule(
    code="OWN204",
    name="free-while-owner-alive",
    severity="error",
    summary="A handle is freed while an object built on it that does not own it (SYCL `keep`, CuPy `UnownedMemory`) still lives.",
    what_it_does="""
Reports a destroy/free of a handle adopted with ownership `keep` while a
local reference (or `self.x` in the same method) to the SYCL object built
from it is still live.

The same meaning carries over to CUDA (issue 24): `cupy.cuda.UnownedMemory(ptr,
size, owner)` views memory it never frees (an `[[adopt]]` with a fixed
`ownership = "keep"`, rules/cupy.toml); freeing `ptr` with
`cupy.cuda.runtime.free` while that view is held is reported too.
""",
    why_bad="""
With `keep` the application owns the handle but must outlive every SYCL
object built on it (4.4.2); for buffers the destructor blocks on the memory
(4.5). Destroying it first leaves the SYCL object on freed driver state.
""",
    invalid=(
        """
from ze import *
from sycl.ext.oneapi import level_zero as lz


def adopt_context(hctx, dev):
    ctx = lz.make_context(hctx, devices=[dev], ownership=lz.ownership.keep)
    zeContextDestroy(hctx)  # E: OWN204 (ctx still uses hctx)
    return ctx
""",
        """
import cupy
from cupy.cuda import runtime


def view(n):
    p = runtime.malloc(n)
    mem = cupy.cuda.UnownedMemory(p, n, None)
    runtime.free(p)  # E: OWN204 (mem still views p)
    return cupy.ndarray((n,), cupy.uint8, cupy.cuda.MemoryPointer(mem, 0))
""",
    ),
    valid=(
        """
from ze import *
from sycl.ext.oneapi import level_zero as lz


def count_devices(hctx, dev):
    ctx = lz.make_context(hctx, devices=[dev], ownership=lz.ownership.keep)
    n = len(ctx.get_devices())
    del ctx
    zeContextDestroy(hctx)  # the SYCL context built on hctx is gone
    return n
""",
        """
import cupy
from cupy.cuda import runtime


def checksum(n):
    p = runtime.malloc(n)
    mem = cupy.cuda.UnownedMemory(p, n, None)
    total = int(cupy.ndarray((n,), cupy.uint8, cupy.cuda.MemoryPointer(mem, 0)).sum())
    del mem
    runtime.free(p)  # the view of p is gone
    return total
""",
    ),
    known_limits="""
Liveness is proved only by a live local reference. An owner passed to a call
and then deleted may or may not be alive: no finding.
""",
    references="SYCL Level-Zero backend specification 4.4.2, 4.5.",
    cwe=(416,),
    security_severity=8.0,
)


def describe(v: Violation) -> tuple[str, str, str]:
    h = v.handle or "the handle"
    # the owner as its model names it (`owner-kind`: "CuPy memory", "SYCL context")
    built = f"the {v.fact('owner', 'object')} built on it"
    return (
        f"`{h}` is freed while {built} is still alive{via_suffix(v)}",
        "freed here",
        f"delete {built} (`del obj`) before freeing the handle",
    )


CHECK = Check(RULE, describe)
