"""OWN404 async-argument-released."""

from ownlint.checks.base import Check
from ownlint.engine.violations import Violation
from ownlint.rule import Rule

RULE = Rule(
    code="OWN404",
    name="async-argument-released",
    severity="error",
    summary="Memory passed to an asynchronous submission is released while the submission may still run.",
    what_it_does="""
Reports a memory object (dpctl `MemoryUSM*`, a `dpctl.tensor` or `dpnp`
array, any owner a model's `[async]` table names) passed in the arguments
of an asynchronous submission (`q.submit_async(kernel, args, ...)`,
`q.memcpy_async(dst, src, n)` and the other `[[submit]]` entries) that dies
before the submission's event is waited: its last reference deleted or
rebound (also by the next iteration of a loop), or its local owner going out
of scope at a `return`. Waiting the event, an event that depends on it
(`dEvents=[ev]`), the queue (`q.wait()`), `dpctl.SyclEvent.wait_for(events)`,
or handing the arguments to `q._submit_keep_args_alive(args, events)` ends the
danger. Reported at the `del`, the rebinding assignment or the `return`.

Also reports memory released while work queued on a stream may still read
or write it: a CUDA asynchronous copy, set or kernel launch
(`cudaMemcpyAsync(dst, src, n, kind, stream)`, `cuLaunchKernel(..., stream,
args, 0)`, CuPy's `cupy.cuda.runtime.memcpyAsync`: every model entry with a
`stream` effect) followed by `cudaFree`, `cuMemFree`, `cudaFreeHost` of its
memory before the stream is synchronized (`cudaStreamSynchronize(stream)`,
`cudaEventSynchronize` of an event recorded after the work,
`cudaDeviceSynchronize()`). A stream-ordered release (`cudaFreeAsync(p,
stream)`) is ordered after the work of its own stream, and of the events
that stream was made to wait (`cudaStreamWaitEvent`); on another stream it
is reported. Reported at the release.
""",
    why_bad="""
An asynchronous submission returns before the kernel or copy has run, and
does not keep its arguments alive: the Python object is the only owner of
the USM allocation. When it dies, the allocation is freed while the device
may still read or write it: the kernel reads garbage or writes into memory
the allocator has handed to someone else.
""",
    invalid=(
        """
import dpctl
import dpctl.memory


def fill(q, kernel, n):
    buf = dpctl.memory.MemoryUSMDevice(n * 4, queue=q)
    ev = q.submit_async(kernel, [buf], [n])
    del buf  # E: OWN404 (the kernel may still run)
    ev.wait()
""",
        """
import dpctl
import dpctl.tensor as dpt


def start(q, kernel, n):
    tmp = dpt.empty(n, dtype="f4", sycl_queue=q)
    ev = q.submit_async(kernel, [tmp, n], [n])
    return ev  # E: OWN404 (tmp dies here, the kernel may still run)
""",
        """
from cuda.bindings import runtime as cudart


def copy_back(host, n):
    err, s1 = cudart.cudaStreamCreate()
    err, s2 = cudart.cudaStreamCreate()
    err, d = cudart.cudaMallocAsync(n, s1)
    (err,) = cudart.cudaMemcpyAsync(host, d, n, cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost, s1)
    (err,) = cudart.cudaFreeAsync(d, s2)  # E: OWN404 (s2 is not ordered after the copy on s1)
    (err,) = cudart.cudaStreamSynchronize(s1)
    (err,) = cudart.cudaStreamSynchronize(s2)
    (err,) = cudart.cudaStreamDestroy(s2)
    (err,) = cudart.cudaStreamDestroy(s1)
""",
    ),
    valid=(
        """
import dpctl
import dpctl.memory


def fill(q, kernel, n):
    buf = dpctl.memory.MemoryUSMDevice(n * 4, queue=q)
    ev = q.submit_async(kernel, [buf], [n])
    ev.wait()  # the kernel is done
    del buf
""",
        """
import dpctl
import dpctl.memory


def start(q, kernel, n):
    buf = dpctl.memory.MemoryUSMDevice(n * 4, queue=q)
    args = [buf, n]
    ev = q.submit_async(kernel, args, [n])
    ht = q._submit_keep_args_alive(args, [ev])  # the runtime holds them until ev completes
    return ev, ht
""",
        """
from cuda.bindings import runtime as cudart


def copy_back(host, n):
    err, stream = cudart.cudaStreamCreate()
    err, d = cudart.cudaMallocAsync(n, stream)
    (err,) = cudart.cudaMemcpyAsync(host, d, n, cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost, stream)
    (err,) = cudart.cudaFreeAsync(d, stream)  # ordered after the copy
    (err,) = cudart.cudaStreamSynchronize(stream)
    (err,) = cudart.cudaStreamDestroy(stream)
""",
    ),
    known_limits="""
A memory object stored somewhere, or passed to a call that may keep it, is
not known to die, so nothing is reported for it. Waits are not matched to
their queue: any `wait()` on something that is not a known event counts as
waiting every submission. A submission is known by its call site: in a
loop, waiting the latest event of a site counts as waiting the earlier ones.
Memory made inside the submission's arguments and never bound to a name
(`q.submit_async(k, [MemoryUSMDevice(n)], [n])`) is not followed. An
explicit free or close of a dpctl owner in flight is not reported yet. Work
on a stream that is no known handle (the literal default stream `0`) is not
followed, and a synchronization of a stream or event the analysis does not
know counts as synchronizing everything. The synchronous CUDA frees
(`cudaFree`, `cuMemFree`) may in practice wait for the device: the finding
says the program relies on that, which the API does not promise for work of
other streams or for `cudaFreeHost`.
""",
    references="""
dpctl: `SyclQueue.submit_async`, `memcpy_async`, `_submit_keep_args_alive`; SYCL 2020: event and queue
`wait()`; CUDA Runtime API: stream-ordered memory allocator (`cudaFreeAsync`), stream synchronization.
""",
    cwe=(416,),
    security_severity=8.0,
)

_HOW = {
    "deleted": ("is deleted", "deleted here"),
    "rebound": ("is rebound, losing its last reference,", "rebound here"),
    "returns": ("dies when the function returns", "dies here"),
    "ends": ("dies when the function ends", "dies when the function ends here"),
}


def describe(v: Violation) -> tuple[str, str, str]:
    what = f"`{v.handle}`" if v.handle else "memory passed to an asynchronous submission"
    if v.fact("how") == "released":
        return (
            f"{what} is released while work queued on a stream may still use it",
            "released here before the stream is synchronized",
            "synchronize the stream (or wait an event recorded after the work) first, "
            "or release it ordered on that stream",
        )
    verb, label = _HOW.get(v.fact("how"), ("is released", "released here"))
    return (
        f"{what} {verb} while an asynchronous submission that uses it may still run",
        f"{label} before the submission's event is waited",
        "wait the event (`ev.wait()`) first, or hand the arguments to `q._submit_keep_args_alive(args, [ev])`",
    )


CHECK = Check(RULE, describe)
