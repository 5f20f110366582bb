"""OWN201 double-free."""

from ownlint.checks.base import Check
from ownlint.engine.violations import Violation
from ownlint.rule import Rule

RULE = Rule(
    code="OWN201",
    name="double-free",
    severity="error",
    summary="A native handle or allocation is destroyed or freed a second time on some path.",
    what_it_does="""
Follows every path through a function and reports a release call (`zeMemFree`,
`ze*Destroy`, or a release declared by a model) whose handle was already
released on that path, by the same function or by a helper it called. A
handle queued on a finalizer queue that releases it later (a model's
`release-later`: numba-cuda's `deallocations.add_item(driver.cuMemFree, ptr,
size)`) and also released explicitly, before or after the queuing, is
released twice too.
""",
    why_bad="""
Level Zero does not guard against a second release: the driver may have
handed the same address or handle to another allocation, which is then torn
down under its owner's feet. The crash, if any, comes much later and far away.
CUDA is no safer: on an H100 (driver 580.159.04, cuda-bindings 13.3.1) a
second `cuStreamDestroy` / `cudaStreamDestroy` of one stream ended the
process with SIGSEGV (it did not return an error status), and with another
stream created in between the second destroy silently named the new stream
(docs/cuda-gpu-results.md). A second `cuMemFree` returned
`CUDA_ERROR_INVALID_VALUE`, which a caller rarely checks.
""",
    invalid=(
        """
from ze import *

UINT64_MAX = 2**64 - 1


def finish(hctx, hq, scratch):
    if zeCommandQueueSynchronize(hq, UINT64_MAX) != ZE_RESULT_SUCCESS:
        zeMemFree(hctx, scratch)
    zeMemFree(hctx, scratch)  # E: OWN201
""",
        """
from cuda.bindings import driver


def finish(stream):
    err, dptr = driver.cuMemAlloc(1 << 20)
    driver.cuMemsetD8Async(dptr, 0, 1 << 20, stream)
    (err,) = driver.cuStreamSynchronize(stream)
    (first,) = driver.cuMemFree(dptr)
    (second,) = driver.cuMemFree(dptr)  # E: OWN201
    return first, second
""",
    ),
    valid=(
        """
from ze import *

UINT64_MAX = 2**64 - 1


def finish(hctx, hq, scratch):
    if zeCommandQueueSynchronize(hq, UINT64_MAX) != ZE_RESULT_SUCCESS:
        zeMemFree(hctx, scratch)
        return False
    zeMemFree(hctx, scratch)
    return True
""",
        """
from ze import *

UINT64_MAX = 2**64 - 1


def finish(hctx, hq, scratch):
    try:
        return zeCommandQueueSynchronize(hq, UINT64_MAX) == ZE_RESULT_SUCCESS
    finally:
        zeMemFree(hctx, scratch)  # the one place scratch is released
""",
        """
from cuda.bindings import runtime


def release(p):
    (err,) = runtime.cudaFree(p)
    if err != runtime.cudaError_t.cudaSuccess:
        (err,) = runtime.cudaFree(p)  # the first free failed: nothing was freed
    return err
""",
    ),
    known_limits="""
A release through a handle stored in an object's attribute is followed inside
one method (and the `self.method()` and `super().method()` calls it makes),
and on an object of a project class built in the function (`x = C(...)`,
`with C(...) as x`), a parameter annotated with one (`def finish(buf: C)`,
the class resolved through the module's imports), an object a callee built
and handed back, or one held in `self.x` where every assignment of `self.x`
in the class builds one class (`self.prior = Pipeline(...)`): `C.__init__`,
the methods called on `x` (resolved in `C` and its bases), `__enter__` and
`__exit__` act on `x`'s attributes, and a helper's effects on its annotated
parameter's attributes are replayed on its caller's object. Two objects
given one handle that each free it at teardown free it twice (TensorRT's
Diffusion demos). A method's tests of its own attributes (`if self.owns:`)
are checked against what the caller knows of them.
Not yet: an annotation that is a string, a union or a generic; classes whose
name is not capitalised (nothing is known of such an object); objects more
than one attribute down (`self.a.b.c`); attributes assigned from outside the
class; an object passed to a call that does not annotate it with its class,
or stored somewhere, is no longer followed, nor one whose attribute the
helper rebinds.
Releases when an object dies count: a handle passed to a model release
through `weakref.finalize(obj, release, ...)`, or held in an attribute that
the class's `__del__` frees on every path (while the attribute still holds
it), is released a second time by an explicit release; not yet through a
helper's parameter or an inherited `__del__`, nor in a file that mentions
`detach` (a finalizer may be cancelled there). Branches on the same unchanged
local are correlated; conditions on anything else are assumed to go either way.
""",
    references="Level Zero specification: `zeMemFree`, `ze*Destroy`.",
    cwe=(415,),
    security_severity=8.0,
)


def describe(v: Violation) -> tuple[str, str, str]:
    h = v.handle or "the handle"
    via = v.fact("via")
    where = f" (inside `{via}`)" if via else ""
    if v.fact("queued") == "yes":
        return (
            f"`{h}` is freed here and again when its finalizer queue runs{where}",
            "freed here, although it is queued for release",
            "release it either through the queue or explicitly, not both",
        )
    if v.fact("queued") == "after":
        return (
            f"`{h}` is queued for release after it was freed{where}",
            "queued here for a second release",
            "release it either through the queue or explicitly, not both",
        )
    return (
        f"`{h}` is freed a second time{where}",
        "freed again here",
        "release each handle in exactly one place (a `finally` block), or set the name to None after freeing it",
    )


def story_label(label: str) -> str:
    """The release that comes before the reported one is the first of two
    (also one inside a helper: "freed here, inside `release`")."""
    return "first " + label if label == "freed here" or label.startswith("freed here, inside ") else label


CHECK = Check(RULE, describe, story_label=story_label)
