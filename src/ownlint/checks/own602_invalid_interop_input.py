"""OWN602 invalid-interop-input."""

from ownlint.checks.base import Check, via_suffix
from ownlint.engine.violations import Violation
from ownlint.rule import Rule

RULE = Rule(
    code="OWN602",
    name="invalid-interop-input",
    severity="error",
    summary="A `make_*` call is given input the backend specification forbids.",
    what_it_does="""
Reports `make_context` with an empty device list (`devices=[]`, an empty
`DeviceList`); `make_queue` whose properties (`properties=` / `Properties=`
list, tuple or property-list call) include a `compute_index` (a call or name
whose last part is `compute_index`); and `make_buffer` of memory that does
not come from `zeMemAlloc*` (a host buffer, a numpy array's address, an
`mmap`). Literal inputs are read directly or through a local bound once to a
literal.
""",
    why_bad="""
Each is an input the backend specification rules out, so the call fails at
run time or builds a broken object: a context needs at least one device; the
compute engine index is fixed when the native queue or immediate command
list is created, so `make_queue` may not be given one; and a buffer adopts
memory the runtime will later release and migrate as a Level Zero allocation
(4.5), which host memory is not.
""",
    invalid=(
        """
from sycl.ext.oneapi import level_zero as lz


def adopt(hctx, hq, ptr, dev):
    ctx = lz.make_context(hctx, devices=[])  # E: OWN602
    q = lz.make_queue(hq, ctx, device=dev, properties=[lz.compute_index(1)])  # E: OWN602
    buf = lz.make_buffer(ptr, ctx)
    return ctx, q, buf
""",
        """
import numpy as np
from sycl.ext.oneapi import level_zero as lz


def wrap_host_array(ctx, nbytes):
    host = np.zeros(nbytes, dtype=np.uint8)
    return lz.make_buffer(host.ctypes.data, ctx)  # E: OWN602 (not Level Zero memory)
""",
    ),
    valid=(
        """
from sycl.ext.oneapi import level_zero as lz


def adopt(hctx, hq, ptr, dev):
    ctx = lz.make_context(hctx, devices=[dev])
    q = lz.make_queue(hq, ctx, device=dev)  # the engine index is chosen in ze_command_queue_desc_t
    buf = lz.make_buffer(ptr, ctx)
    return ctx, q, buf
""",
        """
import ctypes

from ze import *
from sycl.ext.oneapi import level_zero as lz


def wrap_device_memory(hctx, hdev, ctx, nbytes):
    desc = ze_device_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC)
    ptr = ctypes.c_void_p()
    zeMemAllocDevice(hctx, ctypes.byref(desc), nbytes, 64, hdev, ctypes.byref(ptr))
    return lz.make_buffer(ptr, ctx)
""",
    ),
    known_limits="""
Only literal inputs are checked: a device list or property list built at run
time gives no finding. That all devices of a context share one platform is
not checked. Host memory is recognised from the constructors `rules/memmap.toml`
lists (numpy's among them), numpy slices and views of them, and helpers that
return an address inside their argument; memory from any other source gives
no finding:

    host = np.fromfile(f, dtype=np.uint8)                 # not listed
    lz.make_buffer(ctypes.c_void_p(host.ctypes.data), ctx)  # no finding
""",
    references="SYCL Level-Zero backend specification 4.5 and its `make_*` requirements.",
    cwe=(628,),
    security_severity=5.0,
)


def describe(v: Violation) -> tuple[str, str, str]:
    problem = v.fact("problem")
    detail = v.fact("detail")
    extra = f" ({detail})" if detail else ""
    via = via_suffix(v)
    if problem == "empty-devices":
        return (
            f"`make_context` is given an empty device list{extra}{via}",
            "no devices",
            "list at least one device of the native context (`devices=[dev]`)",
        )
    if problem == "compute-index":
        return (
            f"`make_queue` properties include `compute_index`{extra}{via}",
            "`compute_index` is not allowed here",
            "drop the property: choose the engine index when creating the native queue or command list (`ze_command_queue_desc_t.index`)",
        )
    if problem == "host-memory":
        h = f"`{v.handle}`" if v.handle else "the memory"
        return (
            f"`make_buffer` is given {h}, which is not a Level Zero allocation from `zeMemAlloc*`{extra}{via}",
            "not memory from `zeMemAlloc*`",
            "allocate with `zeMemAllocHost` / `zeMemAllocDevice` / `zeMemAllocShared` and copy the data in, or build an ordinary SYCL buffer from the host data",
        )
    return (
        f"a `make_*` call is given input the backend specification forbids{extra}{via}",
        "invalid interop input",
        "pass the native handle and inputs the backend specification requires",
    )


CHECK = Check(RULE, describe)
