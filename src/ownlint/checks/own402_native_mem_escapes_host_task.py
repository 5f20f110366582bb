"""OWN402 native-mem-escapes-host-task."""

from ownlint.checks.base import Check, via_suffix
from ownlint.engine.violations import Violation
from ownlint.rule import Rule

RULE = Rule(
    code="OWN402",
    name="native-mem-escapes-host-task",
    severity="warning",
    summary="A pointer from `interop_handle.get_native_mem` is stored outside, or returned from, the host task.",
    what_it_does="""
Reports, inside a host task function, a store of the pointer returned by
`ih.get_native_mem(acc)` (or an alias or value derived from it) into an
attribute, a global or nonlocal name, or a container created outside the
host task (item assignment, `append`, `add`, `update`), and a `return` or
`yield` of it.
""",
    why_bad="""
The pointer is borrowed for the duration of the host task only: the runtime
guarantees the accessor's memory is there, and not being moved or written by
other commands, while the task runs. Afterwards it may migrate, reuse or free
that memory, so a pointer kept beyond the task points at memory the
application no longer has any claim on.
""",
    invalid=(
        """
import ctypes

saved = []


def read_back(q, buf, out, nbytes):
    def cgf(cgh):
        acc = buf.get_access(cgh)

        def task(ih):
            ptr = ih.get_native_mem(acc)
            ctypes.memmove(out, ptr, nbytes)
            saved.append(ptr)  # E: OWN402

        cgh.host_task(task)

    q.submit(cgf).wait()
""",
    ),
    valid=(
        """
import ctypes


def read_back(q, buf, out, nbytes):
    def cgf(cgh):
        acc = buf.get_access(cgh)

        def task(ih):
            ptr = ih.get_native_mem(acc)
            ctypes.memmove(out, ptr, nbytes)  # used inside the task only

        cgh.host_task(task)

    q.submit(cgf).wait()
""",
    ),
    known_limits="""
Only functions ownlint sees given to `host_task` are host tasks. A pointer
passed to a call that may keep it is not followed into that call.
""",
    references="""
SYCL 2020 specification: `interop_handle::get_native_mem`, host tasks.
SYCL Level-Zero backend specification 4.2.
""",
    cwe=(825,),
    security_severity=7.0,
    precision="medium",
)

_WHERE = {
    "global": ("is stored in a global", "stored in a global here"),
    "attribute": ("is stored in an attribute", "stored in an attribute here"),
    "container": ("is stored in a container created outside the host task", "stored outside the task here"),
    "return": ("is returned from the host task", "returned here"),
    "yield": ("is yielded from the host task", "yielded here"),
}


def describe(v: Violation) -> tuple[str, str, str]:
    h = f"`{v.handle}`" if v.handle else "the pointer"
    what, label = _WHERE.get(v.fact("where"), ("escapes the host task", "escapes the host task here"))
    return (
        f"{h} from `get_native_mem` {what}, but is valid only while the host task runs{via_suffix(v)}",
        label,
        "use the native pointer only inside the host task; pass results out through the SYCL buffer or a copy, not the pointer",
    )


CHECK = Check(RULE, describe)
