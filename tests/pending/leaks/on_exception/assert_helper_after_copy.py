"""OWN206 (preview, OWN206 selected): the test frees its buffer at the end,
but every `assertSuccess` in between raises `AssertionError` when a copy
fails, and the buffer then stays allocated for the rest of the test
session. Reported at the first `assertSuccess` after the allocation's own
(which tests the allocation: on failure nothing was allocated).

Source: leofang/cuda-python, cuda_bindings/tests/test_cudart.py,
`test_cudart_memcpy` (`assertSuccess` from the same file).
"""
import numpy as np

from cuda.bindings import runtime as cudart


def assertSuccess(err):
    assert err == cudart.cudaError_t.cudaSuccess


def test_cudart_memcpy(h1, h2):
    size = 1024 * np.uint8().itemsize
    err, dptr = cudart.cudaMalloc(size)
    assertSuccess(err)
    (err,) = cudart.cudaMemcpy(dptr, h1, size, cudart.cudaMemcpyKind.cudaMemcpyHostToDevice)
    assertSuccess(err)  # E: OWN206
    (err,) = cudart.cudaMemcpy(h2, dptr, size, cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost)
    assertSuccess(err)
    (err,) = cudart.cudaFree(dptr)
    assertSuccess(err)
