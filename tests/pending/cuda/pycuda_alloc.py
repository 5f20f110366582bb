"""Pending (rules/CUDA-NEEDS.md, feature 6): PyCUDA's
`pycuda.driver.mem_alloc(n)` returns a DeviceAllocation released by its own
method `.free()`: a second `.free()` is OWN201, a use after it OWN203.

Runnable on a GPU where PyCUDA is installed: gpu/run_cuda_examples.py calls
each `bug_*` function in its own process and records what it does.
"""
import pycuda.autoinit  # noqa: F401  (creates and activates a context)
import pycuda.driver as cuda

N = 1 << 20


def bug_double_free():
    mem = cuda.mem_alloc(N)
    mem.free()
    mem.free()  # E: OWN201
    return int(mem)


def bug_use_after_free():
    mem = cuda.mem_alloc(N)
    mem.free()
    cuda.memset_d8(mem, 0, N)  # E: OWN203
    return "returned"
