"""OWN202 free-of-runtime-owned."""

from ownlint.checks.base import Check, via_suffix
from ownlint.engine.violations import Violation
from ownlint.rule import Rule

RULE = Rule(
    code="OWN202",
    name="free-of-runtime-owned",
    severity="error",
    summary="The application frees a handle or pointer an object owns (given to a SYCL object, or lent by one or by a torch tensor, a CuPy or numba array).",
    what_it_does="""
Reports a destroy/free (`ze*Destroy`, `zeMemFree`, a model's release) of a
handle that was transferred to a `make_*` object, or that came from
`get_native` of an object not made with `keep`, whether or not the owner has
died by then.
""",
    why_bad="""
"The application must not destroy the Level-Zero handle itself" (4.4.1): the
runtime destroys it when the owner dies, so this is a double destroy; for
buffers (4.5) the runtime may still be using the memory.
""",
    invalid=(
        """
import ctypes

from ze import *
from sycl.ext.oneapi import level_zero as lz


def wrap(hctx, hdev, ctx, nbytes):
    desc = ze_device_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC)
    ptr = ctypes.c_void_p()
    zeMemAllocDevice(hctx, ctypes.byref(desc), nbytes, 64, hdev, ctypes.byref(ptr))
    buf = lz.make_buffer(ptr, ctx)  # transfer: the runtime frees ptr with buf
    zeMemFree(hctx, ptr)  # E: OWN202
    return buf
""",
    ),
    valid=(
        """
import ctypes

from ze import *
from sycl.ext.oneapi import level_zero as lz


def wrap(hctx, hdev, ctx, nbytes):
    desc = ze_device_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC)
    ptr = ctypes.c_void_p()
    zeMemAllocDevice(hctx, ctypes.byref(desc), nbytes, 64, hdev, ctypes.byref(ptr))
    buf = lz.make_buffer(ptr, ctx, ownership=lz.ownership.keep)
    size = buf.byte_size()
    del buf
    zeMemFree(hctx, ptr)  # the application kept ownership, and buf is gone
    return size
""",
    ),
    known_limits="An ownership ownlint cannot read gives no finding.",
    references="SYCL Level-Zero backend specification 4.4.1, 4.4.3, 4.5.",
    cwe=(763,),
    security_severity=7.5,
)


def describe(v: Violation) -> tuple[str, str, str]:
    h = v.handle or "the handle"
    # the owner as its model names it (`owner-kind`: "torch tensor", "SYCL context")
    owner = f"the {v.fact('owner', 'object')}"
    advice = f"let {owner} release it"
    if v.fact("transferred"):  # the application gave it away when it built the owner
        advice += f", or adopt it without giving up its ownership (`keep`) and free it after {owner} is gone"
    return (
        f"`{h}` belongs to {owner} it came from and must not be freed by the application{via_suffix(v)}",
        "freed here",
        advice,
    )


CHECK = Check(RULE, describe)
