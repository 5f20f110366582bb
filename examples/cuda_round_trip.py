"""Copy a buffer to the GPU and back through the CUDA driver API (cuda.bindings).

Two bugs: `to_device` frees the device buffer on its error path and then
goes on copying into it, and `round_trip` frees it a second time. ownlint
only parses this program, it never runs it: `cuda-python` need not be
installed.
"""
from cuda.bindings import driver

OK = driver.CUresult.CUDA_SUCCESS


def to_device(data, stream):
    n = len(data)
    err, dptr = driver.cuMemAlloc(n)
    if err != OK:
        raise RuntimeError(f"cuMemAlloc: {err}")
    (err,) = driver.cuMemsetD8Async(dptr, 0, n, stream)
    if err != OK:
        driver.cuMemFree(dptr)
    (err,) = driver.cuMemcpyHtoDAsync(dptr, data, n, stream)
    return dptr


def round_trip(data):
    err, stream = driver.cuStreamCreate(0)
    dptr = to_device(data, stream)
    out = bytearray(len(data))
    (err,) = driver.cuMemcpyDtoHAsync(out, dptr, len(data), stream)
    (err,) = driver.cuStreamSynchronize(stream)
    (err,) = driver.cuMemFree(dptr)
    (err,) = driver.cuStreamDestroy(stream)
    (err,) = driver.cuMemFree(dptr)
    return bytes(out)
