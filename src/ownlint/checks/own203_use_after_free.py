"""OWN203 use-after-free."""

from ownlint.checks.base import Check
from ownlint.engine.violations import Violation
from ownlint.rule import Rule

RULE = Rule(
    code="OWN203",
    name="use-after-free",
    severity="error",
    summary="A native handle or allocation is used after the application destroyed or freed it.",
    what_it_does="""
Reports a use of a handle (passing it, an alias of it, or a value derived from
it such as `h.value` or `ctypes.cast(h, T)`, to a call, or reading through it)
on a path where it was already destroyed or freed, including giving a freed
handle to `make_*`. A handle that belongs to another (what a model's
`parent` effect says: memory, streams, events and modules made in the
current CUDA context, a kernel function got from its module, what a Level
Zero context makes) ends with its parent: using it after the parent's
destroy (`cuCtxDestroy`, `cuModuleUnload`, `zeContextDestroy`) is reported
too, with the destroy in the story.
""",
    why_bad="""
After `zeMemFree` or `ze*Destroy` the handle names nothing: the driver may
reuse it for a new object, so the use reads or writes someone else's memory,
or the call fails in a way the caller rarely checks. Measured with CUDA on an
H100 (docs/cuda-gpu-results.md): `cuStreamSynchronize` of a destroyed stream
and `cuMemcpyHtoD` from freed page-locked memory ended the process with
SIGSEGV, while `cuCtxPushCurrent` of a destroyed context returned
`CUDA_SUCCESS`.
""",
    invalid=(
        """
from ze import *


def transform(hctx, hcl, src, out, scratch, nbytes):
    zeCommandListAppendMemoryCopy(hcl, scratch, src, nbytes, None, 0, None)
    zeCommandListAppendBarrier(hcl, None, 0, None)
    zeMemFree(hctx, scratch)
    zeCommandListAppendMemoryCopy(hcl, out, scratch, nbytes, None, 0, None)  # E: OWN203
""",
        """
from cuda.bindings import driver


def transform():
    err, stream = driver.cuStreamCreate(0)
    driver.cuStreamDestroy(stream)
    driver.cuStreamSynchronize(stream)  # E: OWN203
""",
    ),
    valid=(
        """
import ctypes

from ze import *

UINT64_MAX = 2**64 - 1


def transform(hctx, hq, hcl, src, out, scratch, nbytes):
    zeCommandListAppendMemoryCopy(hcl, scratch, src, nbytes, None, 0, None)
    zeCommandListAppendBarrier(hcl, None, 0, None)
    zeCommandListAppendMemoryCopy(hcl, out, scratch, nbytes, None, 0, None)
    zeCommandListClose(hcl)
    zeCommandQueueExecuteCommandLists(hq, 1, ctypes.byref(hcl), None)
    zeCommandQueueSynchronize(hq, UINT64_MAX)
    zeMemFree(hctx, scratch)  # nothing uses scratch any more
""",
    ),
    known_limits="""
Passing a handle to an inspection built-in (`print`, `repr`, `id`, a logging
call, an f-string) or comparing it is not a use. A child used after its parent
was destroyed (memory after `zeContextDestroy` of its context) is not part of
this rule yet. A use after a method released the handle (`x.close()` then
`x.ptr` or `x.run()`) is found where `x`'s class is known, with the limits of
OWN201 (see its known limits: objects built in the function or by a callee,
held in attributes of one class, inherited methods included).
""",
    references="Level Zero specification: `zeMemFree`, `ze*Destroy`.",
    cwe=(416,),
    security_severity=8.0,
)


def describe(v: Violation) -> tuple[str, str, str]:
    h = v.handle or "the handle"
    via = v.fact("via")
    where = f" (inside `{via}`)" if via else ""
    if v.fact("parent") == "destroyed":
        return (
            f"`{h}` is used after what it belongs to was destroyed{where}",
            "used here after its parent's destroy",
            "destroy a context or a module after the last use of what was made in it",
        )
    return (
        f"`{h}` is used after it was freed{where}",
        "used here after the free",
        "move the free after the last use (for device work: after the queue is synchronized)",
    )


CHECK = Check(RULE, describe)
