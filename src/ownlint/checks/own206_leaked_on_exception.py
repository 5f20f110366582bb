"""OWN206 leaked-on-exception (preview)."""

from ownlint.checks.base import Check
from ownlint.engine.violations import Violation
from ownlint.rule import Rule

RULE = Rule(
    code="OWN206",
    name="leaked-on-exception",
    severity="warning",
    summary="A handle is still held when an exception leaves the function.",
    what_it_does="""
Reports a handle that a model's creator made (as for OWN205) and that is
still held, neither released nor handed off, when an exception leaves the
function: an explicit `raise`, or an exception inside a `try` whose
handlers and `finally` do not release it. Reported at the function, once
per handle, with the first call after the creation that may raise (a
project function, an unknown call, the exception a `raise` builds) as the
related location; the check of the creation's own status is not that call
(when it raises, nothing was made). A handle that leaks
on a normal path too is OWN205's only.

Turn it on for libraries and long-running services, where an exception is
caught and the program goes on: each failure then leaks what was made
before it. In a one-shot script an exception ends the process, which
frees everything: leave it off there.
""",
    why_bad="""
An exception between a creation and its release skips the release. A
program that catches it and goes on (a server, a training loop that retries,
a test suite) keeps the device memory, the stream or the registration
until it exits.
""",
    invalid=(
        """
from cuda.bindings import runtime as cudart


def allocate(n_in, n_out):  # E: OWN206
    err, d_in = cudart.cudaMalloc(n_in)
    if err != cudart.cudaError_t.cudaSuccess:
        raise RuntimeError(err)
    err, d_out = cudart.cudaMalloc(n_out)
    if err != cudart.cudaError_t.cudaSuccess:
        raise RuntimeError(err)
    return d_in, d_out
""",
    ),
    valid=(
        """
from cuda.bindings import runtime as cudart


def allocate(n_in, n_out):
    err, d_in = cudart.cudaMalloc(n_in)
    if err != cudart.cudaError_t.cudaSuccess:
        raise RuntimeError(err)
    err, d_out = cudart.cudaMalloc(n_out)
    if err != cudart.cudaError_t.cudaSuccess:
        cudart.cudaFree(d_in)
        raise RuntimeError(err)
    return d_in, d_out
""",
    ),
    known_limits="""
Only the paths of exceptions the analysis follows are seen: an explicit
`raise` or a failed `assert` anywhere, and a call that may raise inside a
`try` or `with` body. A call that may raise outside any `try` (a status
check between a creation and its release, `check(err)`) has no exception
path in the analysis, so its leak is not reported yet; neither is a failed
`assert` (it builds no exception by a call, and the finding has no first
call to point at). The finding is on the function's first line, since
the exception's path has no one statement (the call is related). Counted handles (a pushed context, a retained primary
context) are not followed.
""",
    references="CUDA Runtime API and Driver API: the `*Destroy`, `*Free` and `*Unload` calls of each creator.",
    cwe=(772, 401),
    security_severity=3.0,
    precision="medium",
    preview=True,
)


def describe(v: Violation) -> tuple[str, str, str]:
    what = f"`{v.handle}`" if v.handle else "a handle"
    return (
        f"{what} is leaked when an exception leaves the function: it is not released on that path",
        "an exception leaves here, the handle unreleased",
        "release it in `finally` (or a `with` block), or release it before raising",
    )


CHECK = Check(RULE, describe)
