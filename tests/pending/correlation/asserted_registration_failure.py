"""Clean: a second host registration over a live one, made to test that the runtime refuses it
(cuda-python's cuda_bindings/tests/test_cudart.py, test_cudart_hostRegister, reduced): the status
is asserted to be cudaErrorHostMemoryAlreadyRegistered right after the call, so on every path
that goes on the call failed and mapped nothing. A false OWN301 at the second cudaHostRegister
today (found running ownlint on leofang/cuda-python, 2026-11-26): the overlap is reported at the
call, before the status says it failed. Also: the offsets `int((0 * page_size) / 8)` and
`int((8 * page_size) / 8)` are shown as `base + 0` for both mappings.

Why clean: a call whose status is then asserted to be a failure value had no effect (rules/README.md
"Status results": on the failure side the call created, released and mapped nothing); the report
must wait for the outcome, or the failure side must drop it."""
import numpy as np
from cuda.bindings import runtime as cudart


def test_cudart_hostRegister():
    page_size = 80
    addr_host = np.full(page_size * 3, 1).astype(np.uint8)
    addr = addr_host.ctypes.data
    size_0 = (16 * page_size) / 8
    addr_0 = addr + int((0 * page_size) / 8)
    size_1 = (16 * page_size) / 8
    addr_1 = addr + int((8 * page_size) / 8)
    (err,) = cudart.cudaHostRegister(addr_0, size_0, 3)
    assert err == cudart.cudaError_t.cudaSuccess
    (err,) = cudart.cudaHostRegister(addr_1, size_1, 3)
    assert err == cudart.cudaError_t.cudaErrorHostMemoryAlreadyRegistered
    (err,) = cudart.cudaHostUnregister(addr_1)
    assert err == cudart.cudaError_t.cudaErrorInvalidValue
    (err,) = cudart.cudaHostUnregister(addr_0)
    assert err == cudart.cudaError_t.cudaSuccess
