"""OWN205 across modules: `trans.append(release)` only registers an undo
action, and `trans.commit()` (transaction.py) discards it with `pop_all()`,
so on the normal path `cuMemRelease(handle)` never runs; `handle` is lost
at the `return` (a known upstream bug: every successful allocation leaks
its physical memory).

Source: leofang/cuda-python, cuda_core/cuda/core/_memory/_virtual_memory_resource.py,
`VirtualMemoryResource.allocate` (reduced: granularity, access descriptors
and the stream argument removed).
"""
from cuda.bindings import driver
from cuda.core import Buffer

from transaction import Transaction


def raise_if_driver_error(res):
    if res != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(res)


class VirtualMemoryResource:
    def allocate(self, aligned_size, prop, addr_align):
        with Transaction() as trans:
            res, handle = driver.cuMemCreate(aligned_size, prop, 0)
            raise_if_driver_error(res)
            trans.append(lambda h=handle: raise_if_driver_error(driver.cuMemRelease(h)[0]))

            res, ptr = driver.cuMemAddressReserve(aligned_size, addr_align, 0, 0)
            raise_if_driver_error(res)
            trans.append(lambda p=ptr, s=aligned_size: raise_if_driver_error(driver.cuMemAddressFree(p, s)[0]))

            (res,) = driver.cuMemMap(ptr, aligned_size, 0, handle, 0)
            trans.append(lambda p=ptr, s=aligned_size: raise_if_driver_error(driver.cuMemUnmap(p, s)[0]))
            raise_if_driver_error(res)

            trans.commit()

        buf = Buffer.from_handle(ptr=ptr, size=aligned_size, mr=self)
        return buf  # E: OWN205
