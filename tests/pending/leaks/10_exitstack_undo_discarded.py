"""OWN205: the release of the physical allocation is registered only as an
undo action (`ExitStack.callback`), and `pop_all()` discards every undo
action once the allocation succeeds: on the normal path nothing ever calls
`cuMemRelease(handle)`, and the address range handed to the buffer keeps
only the mapping. (Unmapping later frees nothing while this reference is
held: each successful allocation leaks its physical memory.) The handle is
lost at the `return`.

Source: leofang/cuda-python, cuda_core/cuda/core/_memory/_virtual_memory_resource.py,
`VirtualMemoryResource.allocate`, with `Transaction` (cuda_core/cuda/core/_utils/
cuda_utils.pyx) written out as the `ExitStack` it wraps. The multi-module
form is transaction_pkg/.
"""
from contextlib import ExitStack

from cuda.bindings import driver
from cuda.core import Buffer


def raise_if_driver_error(res):
    if res != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(res)


class VirtualMemoryResource:
    def allocate(self, aligned_size, prop, addr_align):
        with ExitStack() as stack:
            res, handle = driver.cuMemCreate(aligned_size, prop, 0)
            raise_if_driver_error(res)
            stack.callback(lambda h=handle: raise_if_driver_error(driver.cuMemRelease(h)[0]))

            res, ptr = driver.cuMemAddressReserve(aligned_size, addr_align, 0, 0)
            raise_if_driver_error(res)
            stack.callback(lambda p=ptr, s=aligned_size: raise_if_driver_error(driver.cuMemAddressFree(p, s)[0]))

            (res,) = driver.cuMemMap(ptr, aligned_size, 0, handle, 0)
            stack.callback(lambda p=ptr, s=aligned_size: raise_if_driver_error(driver.cuMemUnmap(p, s)[0]))
            raise_if_driver_error(res)

            stack.pop_all()

        buf = Buffer.from_handle(ptr=ptr, size=aligned_size, mr=self)
        return buf  # E: OWN205
