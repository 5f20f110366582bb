"""OWN206 (preview, OWN206 selected) on a counted handle: the primary
context is retained and released on the normal path, but a failing assert
between the two leaves the count one above where it started. The assert
right after the retain tests the retain's own status (on failure nothing
was retained); the next one is the leak point. In `_cufile_driver_prewarm`
the release is in a `finally`, but the `try` starts after that assert.

Source: leofang/cuda-python, cuda_bindings/tests/test_cufile.py, the `ctx`
fixture and `_cufile_driver_prewarm` (decorators dropped).
"""
from cuda.bindings import cufile
from cuda.bindings import driver as cuda


def ctx():
    (err,) = cuda.cuInit(0)
    assert err == cuda.CUresult.CUDA_SUCCESS
    err, device = cuda.cuDeviceGet(0)
    assert err == cuda.CUresult.CUDA_SUCCESS
    err, ctx = cuda.cuDevicePrimaryCtxRetain(device)
    assert err == cuda.CUresult.CUDA_SUCCESS
    (err,) = cuda.cuCtxSetCurrent(ctx)
    assert err == cuda.CUresult.CUDA_SUCCESS  # E: OWN206
    yield
    cuda.cuDevicePrimaryCtxRelease(device)


def _cufile_driver_prewarm():
    (err,) = cuda.cuInit(0)
    assert err == cuda.CUresult.CUDA_SUCCESS
    err, device = cuda.cuDeviceGet(0)
    assert err == cuda.CUresult.CUDA_SUCCESS
    err, dctx = cuda.cuDevicePrimaryCtxRetain(device)
    assert err == cuda.CUresult.CUDA_SUCCESS
    (err,) = cuda.cuCtxSetCurrent(dctx)
    assert err == cuda.CUresult.CUDA_SUCCESS  # E: OWN206
    try:
        cufile.driver_open()
        cufile.driver_close()
    finally:
        cuda.cuDevicePrimaryCtxRelease(device)
