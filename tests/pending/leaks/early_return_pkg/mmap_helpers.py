"""Part of early_return_pkg (see main.py): an allocator that returns the
reserved range in a tuple (a hand-off) and a release helper that returns
early, before `cuMemAddressFree`, when `cuMemUnmap` fails. The allocator's
own cleanup calls that helper on a range that was never mapped, where
`cuMemUnmap` does fail: the range leaks on both error paths (OWN205 at the
call, the callee's early `return` as related location; tests/pending/
ISSUE31.md, "through a callee").

Source: leofang/cuda-python, cuda_bindings/examples/0_Introduction/
vector_add_mmap.py, `simple_malloc_multi_device_mmap` (reduced to one
device) and `simple_free_multi_device_mmap` (verbatim but for comments).
"""
from cuda.bindings import driver as cuda


def simple_malloc_mmap(size, prop):
    status, dptr = cuda.cuMemAddressReserve(size, 0, cuda.CUdeviceptr(0), 0)
    if status != cuda.CUresult.CUDA_SUCCESS:
        return status, None, None
    status, allocation_handle = cuda.cuMemCreate(size, prop, 0)
    if status != cuda.CUresult.CUDA_SUCCESS:
        simple_free_multi_device_mmap(dptr, size)  # E: OWN205
        return status, None, None
    (status,) = cuda.cuMemMap(dptr, size, 0, allocation_handle, 0)
    (status2,) = cuda.cuMemRelease(allocation_handle)
    if status != cuda.CUresult.CUDA_SUCCESS:
        simple_free_multi_device_mmap(dptr, size)  # E: OWN205
        return status, None, None
    return (status, dptr, size)


def simple_free_multi_device_mmap(dptr, size):
    status = cuda.cuMemUnmap(dptr, size)
    if status[0] != cuda.CUresult.CUDA_SUCCESS:
        return status
    status = cuda.cuMemAddressFree(dptr, size)
    if status[0] != cuda.CUresult.CUDA_SUCCESS:
        return status
    return status
