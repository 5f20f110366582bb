"""A pointer borrowed through `__cuda_array_interface__` from a CuPy array that is
dead (the shape of cupy's tests/cupy_tests/core_tests/test_cuda_array_interface.py,
with the array rebound). On the H100 the write returned cudaSuccess and changed every
byte of the next array CuPy's memory pool handed out (docs/cuda-gpu-results.md).

Pending: CuPy arrays as owners (rules/cupy.toml says why they are not modelled yet:
on cupy itself they cost 23% more time and 10 more budget notes in array code that
holds no handle, until relevance below the file, issue 34).

Runnable on a GPU: gpu/run_cuda_examples.py calls each `bug_*` function in its own
process and records what the runtime returns.
"""
import cupy
from cuda.bindings import runtime

N = 1 << 20


def bug_cupy_pointer_after_rebind():
    a = cupy.zeros(N, dtype=cupy.uint8)
    p = a.__cuda_array_interface__["data"][0]
    a = None
    victim = cupy.zeros(N, dtype=cupy.uint8)  # the memory pool's next block
    (err,) = runtime.cudaMemset(p, 1, N)  # E: OWN102
    runtime.cudaDeviceSynchronize()
    return err, int(victim.sum())  # N: the write landed in `victim`
