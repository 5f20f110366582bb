"""OWN205 on an early error `return`: when `cuMemUnmap` fails, the function
returns its status before `cuMemAddressFree`, and the reserved address
range is lost there. The normal path frees it.

Source: leofang/cuda-python, cuda_bindings/examples/0_Introduction/
vector_add_mmap.py, `simple_free_multi_device_mmap`, with the reservation
and the mapping of `simple_malloc_multi_device_mmap` moved into the same
function so that the range is made here (the two-function form is
early_return_pkg/).
"""
from cuda.bindings import driver as cuda


def map_use_unmap(size, allocation_handle, use):
    status, dptr = cuda.cuMemAddressReserve(size, 0, cuda.CUdeviceptr(0), 0)
    if status != cuda.CUresult.CUDA_SUCCESS:
        return status
    (status,) = cuda.cuMemMap(dptr, size, 0, allocation_handle, 0)
    if status == cuda.CUresult.CUDA_SUCCESS:
        use(dptr, size)

    status = cuda.cuMemUnmap(dptr, size)
    if status[0] != cuda.CUresult.CUDA_SUCCESS:
        return status  # E: OWN205

    status = cuda.cuMemAddressFree(dptr, size)
    if status[0] != cuda.CUresult.CUDA_SUCCESS:
        return status
    return status
