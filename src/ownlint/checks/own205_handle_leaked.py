"""OWN205 handle-leaked."""

from ownlint.checks.base import Check
from ownlint.engine.violations import Violation
from ownlint.rule import Rule

RULE = Rule(
    code="OWN205",
    name="handle-leaked",
    severity="warning",
    summary="A handle a creator made loses its last reference without a release or a hand-off.",
    what_it_does="""
Reports a handle that a model's creator made (device or host memory, a
stream, an event, a graph, a module, a context, a pool, an NVRTC program:
`err, s = cudaStreamCreate()`, `cuEventCreate(byref(ev), 0)`,
`cupy.cuda.runtime.malloc(n)`) that loses its last local reference on a path
that ends normally, neither released nor handed off: at a `return` or where
the function falls off its end (reported on its last statement), where its
last name is rebound or deleted; where it is stored in a field of `self`
(or added to a container field) that no method of its class releases or
hands off (the class's `__del__`, `close` or `__exit__` release other fields,
or it has none). A host registration (`cudaHostRegister(a, n, flags)`: a
mapping whose model names the call that ends it) of memory a local name
holds is lost where the function returns or ends with it still live and the
memory neither returned nor handed off. A counted pair whose release names
no handle (`cuCtxPushCurrent(ctx)` and `cuCtxPopCurrent()`) is left above
its start where a path of a function that pops on other paths returns or
ends with a push not popped. One finding per handle, at the first
place in the file where it is lost; the creation is the related location.

Handed off, and no leak: returned or yielded (alone, or in a tuple, list or
dict); stored in an attribute, a global or a container; passed to a function
that may keep it (an unknown function, a function of the project, a
constructor); captured by a nested function. A call whose model knows the
callee (`cudaEventRecord(ev, s)`, `cuStreamSynchronize(s)`, any call a model
file lists) reads its arguments and keeps none, unless its effects adopt or
consume one: passing a stream or an event to its own runtime is no hand-off.
""",
    why_bad="""
A handle the program made is the program's to release: nothing else frees a
stream, an event, device memory or a module before the process exits.
Leaks accumulate in a function that runs more than once: a long-running
job, a server or a training loop runs out of device memory or of streams,
and a second registration of the same host range fails as already
registered.
""",
    invalid=(
        """
from cuda.bindings import runtime as cudart


def time_copy(dst, src, nbytes):
    err, stream = cudart.cudaStreamCreate()
    err, start = cudart.cudaEventCreate()
    (err,) = cudart.cudaEventRecord(start, stream)
    kind = cudart.cudaMemcpyKind.cudaMemcpyDefault
    (err,) = cudart.cudaMemcpyAsync(dst, src, nbytes, kind, stream)
    (err,) = cudart.cudaStreamSynchronize(stream)
    (err,) = cudart.cudaStreamDestroy(stream)
    return err  # E: OWN205
""",
        """
from cuda.bindings import runtime as cudart


def copy_on_new_stream(dst, src, nbytes):
    err, stream = cudart.cudaStreamCreate()
    kind = cudart.cudaMemcpyKind.cudaMemcpyDefault
    (err,) = cudart.cudaMemcpyAsync(dst, src, nbytes, kind, stream)
    (err,) = cudart.cudaStreamSynchronize(stream)
    del stream  # E: OWN205
    return err
""",
    ),
    valid=(
        """
from cuda.bindings import runtime as cudart


def time_copy(dst, src, nbytes):
    err, stream = cudart.cudaStreamCreate()
    err, start = cudart.cudaEventCreate()
    (err,) = cudart.cudaEventRecord(start, stream)
    kind = cudart.cudaMemcpyKind.cudaMemcpyDefault
    (err,) = cudart.cudaMemcpyAsync(dst, src, nbytes, kind, stream)
    (err,) = cudart.cudaStreamSynchronize(stream)
    (err,) = cudart.cudaEventDestroy(start)
    (err,) = cudart.cudaStreamDestroy(stream)
    return err
""",
        """
from cuda.bindings import runtime as cudart


def make_stream():
    err, stream = cudart.cudaStreamCreate()
    if err != cudart.cudaError_t.cudaSuccess:
        return None  # nothing was made
    return stream  # the caller owns it
""",
    ),
    known_limits="""
A handle a loop makes again on each iteration while the previous one is
still held is reported at the rebinding in the loop (one finding per
creation). A handle a project helper makes and returns (`make_stream()` above)
is a new handle at each caller. A creation's status tuple given to a
function whose value the analysis does not know (`stream =
check(cudart.cudaStreamCreate())`, a status-checking wrapper) is taken to
come back as its handle: a function that keeps the tuple instead is misread.
A handle no name ever holds (`check(cudart.cudaStreamCreate())` as a
statement) is not followed. Which calls read a handle without keeping it is the
models' word: a call of the runtime that no model file lists is taken as
one that may keep what it is given (no finding). A handle stored in a field
of `self` (or added to a container field: `self.bufs.append(p)`) is a leak
only when no method of the class, of its project bases or of the classes
derived from it may let go of that field: give it (or a name bound from
it) to a release, to a call no model knows, to `weakref.finalize`, call a
method on it, return it or store it elsewhere; whether that method runs is
not followed (any method counts, `teardown` too). A field of another object,
or a container, is handed off; a name rebound to a handle of the same creator is not reported (a
test that makes a creation fail on purpose checks `err == CUDA_ERROR_...`,
which is not read as a failure);
a release registered as an undo action that a later call discards
(`ExitStack.callback` then `pop_all()`) counts as a hand-off. Handles whose
model says they live for the process (a device's primary context) or are
freed when their Python object is collected (PyCUDA's `mem_alloc`) never
leak, and a handle named by a key (counted retains) is not followed. A
function that pushes and never pops (an `__enter__`, a `push()` method
whose `pop()` is another) hands the count to its caller, which is not
followed. Leaks
on the path of an exception are OWN206's.
""",
    references="CUDA Runtime API and Driver API: the `*Destroy`, `*Free` and `*Unload` calls of each creator.",
    cwe=(772, 401),
    security_severity=4.0,
    precision="medium",
)

_HOW = {
    "deleted": ("is deleted", "deleted here"),
    "rebound": ("loses its last reference when its name is rebound", "rebound here"),
    "frame end": ("is lost when the function ends", "lost here"),
}


def describe(v: Violation) -> tuple[str, str, str]:
    what = f"`{v.handle}`" if v.handle else "a handle"
    if v.fact("how") == "field":
        cls, releasers = v.fact("class"), v.fact("releasers")
        verb = "releases" if releasers and "," not in releasers else "release"
        others = f"`{releasers}` {verb} other fields" if releasers else "no method releases any of its fields"
        return (
            f"a handle is stored in {what}, which no method of `{cls}` releases ({others})",
            "stored here, never released",
            f"release it where `{cls}` releases its handles (`close`, `__exit__`, `__del__`), or keep it in an owner object",
        )
    if v.fact("how") == "mapping":
        return (
            f"the mapping of {what} made by `{v.fact('made by')}` is never ended when the function ends",
            "lost here, never ended",
            "end it (its unregister or unmap call) on every path, in `finally` if a call may raise",
        )
    if v.fact("how") == "pushed":
        return (
            f"the {v.fact('kind')} of `{v.fact('made by')}` is not popped before the function ends",
            "ends here, not popped",
            "pop it on every path that pushed it (in `finally`, if a call may raise), as the function's other paths do",
        )
    verb, label = _HOW.get(v.fact("how"), _HOW["frame end"])
    return (
        f"{what} {verb} without being released",
        f"{label}, never released",
        "release it on every path (in `finally`, or an owner object with `close`/`__exit__`), or hand it to its owner",
    )


CHECK = Check(RULE, describe)
