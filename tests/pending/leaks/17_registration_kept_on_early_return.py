"""OWN205 (a registration never ended): three host arrays are registered
for mapped access and unregistered after the check, but the early `return`
for a device without a device pointer leaves all three registered; a later
`cudaHostRegister` of the same range then fails with
`cudaErrorHostMemoryAlreadyRegistered`. Reported at that `return` (one
finding per registration, all on that line).

Source: a variant of leofang/cuda-python, cuda_bindings/examples/
0_Introduction/simple_zero_copy.py, `main` (the `b_pin_generic_memory`
branch: cudaHostRegister ... cudaHostUnregister); the early return is
added, where the sample calls `requirement_not_met` before registering.
"""
import numpy as np

from cuda.bindings import runtime as cudart


def add_mapped(nelem, launch):
    num_bytes = nelem * 4
    a = np.empty(nelem, dtype=np.float32)
    b = np.empty(nelem, dtype=np.float32)
    c = np.empty(nelem, dtype=np.float32)
    (err,) = cudart.cudaHostRegister(a, num_bytes, cudart.cudaHostRegisterMapped)
    (err,) = cudart.cudaHostRegister(b, num_bytes, cudart.cudaHostRegisterMapped)
    (err,) = cudart.cudaHostRegister(c, num_bytes, cudart.cudaHostRegisterMapped)
    err, d_a = cudart.cudaHostGetDevicePointer(a, 0)
    if err != cudart.cudaError_t.cudaSuccess:
        return None  # E: OWN205
    err, d_b = cudart.cudaHostGetDevicePointer(b, 0)
    err, d_c = cudart.cudaHostGetDevicePointer(c, 0)
    launch(d_a, d_b, d_c, nelem)
    (err,) = cudart.cudaDeviceSynchronize()
    (err,) = cudart.cudaHostUnregister(a)
    (err,) = cudart.cudaHostUnregister(b)
    (err,) = cudart.cudaHostUnregister(c)
    return c
