"""OWN401 get-native-unsupported."""

from ownlint.checks.base import Check
from ownlint.engine.violations import Violation
from ownlint.rule import Rule

RULE = Rule(
    code="OWN401",
    name="get-native-unsupported",
    severity="error",
    summary="`get_native` is called on a SYCL buffer or image, which the Level Zero backend does not support.",
    what_it_does="""
Reports `get_native(obj)` or `obj.get_native()` where `obj` is a SYCL buffer
(`make_buffer`) or image (`make_image`) on some path.
""",
    why_bad="""
Section 4.2 of the backend specification does not support `get_native` on
buffers and images: the call fails at run time. Buffer memory is reached
through `interop_handle.get_native_mem` inside a host task.
""",
    invalid=(
        """
from sycl.ext.oneapi import level_zero as lz


def export(ptr, ctx):
    buf = lz.make_buffer(ptr, ctx)
    return buf, lz.get_native(buf)  # E: OWN401
""",
    ),
    valid=(
        """
import ctypes

from sycl.ext.oneapi import level_zero as lz


def read_back(q, ptr, ctx, out, nbytes):
    buf = lz.make_buffer(ptr, ctx)

    def cgf(cgh):
        acc = buf.get_access(cgh)

        def task(ih):
            ctypes.memmove(out, ih.get_native_mem(acc), nbytes)  # the native pointer, inside a host task

        cgh.host_task(task)

    q.submit(cgf).wait()
""",
    ),
    known_limits="Only objects ownlint saw made by `make_buffer` / `make_image` are known to be buffers or images.",
    references="SYCL Level-Zero backend specification 4.2.",
    cwe=(758,),
    security_severity=4.0,
)


def describe(v: Violation) -> tuple[str, str, str]:
    # the owner's kind as its model names it ("SYCL buffer"), and the borrowing call
    kind = v.fact("kind", "SYCL buffer")
    call = v.fact("call", "get_native")
    h = v.handle or "the object"
    return (
        f"`{call}` is not supported on a {kind} (`{h}`)",
        f"`{h}` is a {kind} here",
        "use `interop_handle.get_native_mem(accessor)` inside a host task"
        if call == "get_native"
        else f"take the native handle from an object `{call}` supports",
    )


CHECK = Check(RULE, describe)
