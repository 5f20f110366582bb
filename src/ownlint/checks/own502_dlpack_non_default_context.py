"""OWN502 dlpack-non-default-context."""

from ownlint.checks.base import Check, via_suffix
from ownlint.engine.violations import Violation
from ownlint.rule import Rule

RULE = Rule(
    code="OWN502",
    name="dlpack-non-default-context",
    severity="warning",
    summary="USM memory bound to an explicitly created SYCL context is exported through DLPack.",
    what_it_does="""
Reports a DLPack export (`x.__dlpack__()`, `to_dlpack(x)`, `from_dlpack(x)`)
of an array or USM memory made on a queue whose context was created
explicitly: by `dpctl.SyclContext(device_or_list_or_filter)` or `make_context`,
then used in `dpctl.SyclQueue(ctx, dev)`. The fact follows the memory into
arrays built over it (`buffer=mem`, `usm_ndarray(..., buffer=mem)`) and into
slices and views. Reported once, at the export.
""",
    why_bad="""
DLPack describes a SYCL USM allocation by device only (`kDLOneAPI`), so the
consumer can only assume the device's default platform context
(`ext_oneapi_get_default_context`). Memory bound to any other context cannot
be exported: `__dlpack__()` / `from_dlpack(...)` raises at run time.
""",
    invalid=(
        """
import dpctl
import dpctl.tensor as dpt
import torch


def to_torch(host):
    dev = dpctl.SyclDevice("level_zero:gpu")
    ctx = dpctl.SyclContext(dev)
    q = dpctl.SyclQueue(ctx, dev)
    x = dpt.asarray(host, sycl_queue=q)
    return torch.from_dlpack(x)  # E: OWN502
""",
    ),
    valid=(
        """
import dpctl
import dpctl.tensor as dpt
import torch


def to_torch(host):
    dev = dpctl.SyclDevice("level_zero:gpu")
    q = dpctl.SyclQueue(dev)  # the device's default context
    x = dpt.asarray(host, sycl_queue=q)
    return torch.from_dlpack(x)
""",
    ),
    known_limits="""
A context rebuilt from a capsule (`dpctl.SyclContext(cap)`) may be the
default one: no finding. Arrays received from a caller carry no known
context; an array that a project function or method makes on a queue its
caller passes (or that its object holds) is judged at the call, by that
queue. Consuming the exported capsule later is not reported again.
""",
    references="DLPack exchange protocol for SYCL USM allocations (`kDLOneAPI`); dpctl.",
    runtime="yes: `from_dlpack` raises `DLPackCreationError` (`runtime/examples/own502_invalid.py`)",
    cwe=(758,),
    security_severity=4.0,
    precision="medium",
)


def describe(v: Violation) -> tuple[str, str, str]:
    h = f"`{v.handle}`" if v.handle else "this memory"
    context = v.fact("context")
    made = f" (by `{context}`)" if context else ""
    return (
        f"{h} is bound to a context created explicitly{made}, so its DLPack export raises at run time{via_suffix(v)}",
        "exported here",
        "allocate it with the device's default context (a queue made from the device alone), "
        "or copy the data into memory of that context before export",
    )


CHECK = Check(RULE, describe)
