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
function: an explicit `raise`, a call to a function of the checked
program that may raise (a status-checking wrapper), or an exception inside
a `try` whose handlers and `finally` do not release it. Reported once per
handle, at the first call after the creation that may raise (a project
function, an unknown call, the exception a `raise` builds), with the
function the exception leaves as the related location; the check of the
creation's own status is not that call (when it raises, nothing was
made). A handle that leaks
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


def allocate(n_in, n_out):
    err, d_in = cudart.cudaMalloc(n_in)
    if err != cudart.cudaError_t.cudaSuccess:
        raise RuntimeError(err)
    err, d_out = cudart.cudaMalloc(n_out)
    if err != cudart.cudaError_t.cudaSuccess:
        raise RuntimeError(err)  # E: OWN206
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
`raise` or a failed `assert` anywhere, a call that may raise inside a `try`
or `with` body, and, outside any `try`, a call to a function of the checked
program that may raise (a `raise` or `assert` of its own that it does not
catch, or a call to one that may). A call to a library outside the checked
tree outside any `try` has no exception path in the analysis; neither has
a failed `assert` a finding (it builds no exception by a call, and the
finding has no first call to point at). Counted handles (a pushed context,
a retained primary context) are not followed.
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
        "this call may raise, and the handle is then left unreleased",
        "release it in `finally` (or a `with` block), or release it before raising",
    )


CHECK = Check(RULE, describe)
