"""OWN205: the same undo-only release as 10_exitstack_undo_discarded.py,
written with a plain rollback list: releases are appended as undo actions,
run only in the `except`, and the list is cleared once every step has
succeeded. On the normal path `cuMemRelease(handle)` never runs; `handle`
is lost at the `return`.

Source: the shape of `Transaction` in leofang/cuda-python,
cuda_core/cuda/core/_utils/cuda_utils.pyx (its docstring: "register undo
actions ... rolled back in case of errors"), used as in
cuda_core/cuda/core/_memory/_virtual_memory_resource.py,
`VirtualMemoryResource.allocate`; written with a list, not a verbatim copy
of one repository's code.
"""
from cuda.bindings import driver


def raise_if_driver_error(res):
    if res != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(res)


def map_new_range(aligned_size, prop, addr_align):
    rollback = []
    try:
        res, handle = driver.cuMemCreate(aligned_size, prop, 0)
        raise_if_driver_error(res)
        rollback.append(lambda h=handle: driver.cuMemRelease(h))

        res, ptr = driver.cuMemAddressReserve(aligned_size, addr_align, 0, 0)
        raise_if_driver_error(res)
        rollback.append(lambda p=ptr, s=aligned_size: driver.cuMemAddressFree(p, s))

        (res,) = driver.cuMemMap(ptr, aligned_size, 0, handle, 0)
        raise_if_driver_error(res)
    except Exception:
        for undo in reversed(rollback):
            undo()
        raise
    rollback.clear()
    return ptr  # E: OWN205
