"""Pending (rules/CUDA-NEEDS.md, feature 5): `cupy.cuda.UnownedMemory(ptr,
size, owner)` views memory it never frees (an adoption with `keep`): freeing
`ptr` while a view built on it is alive is OWN204.

Runnable on a GPU: gpu/run_cuda_examples.py calls each `bug_*` function in
its own process and records what CuPy and the runtime do.
"""
import cupy
from cupy.cuda import runtime

N = 1 << 20


def bug_free_while_view_alive():
    p = runtime.malloc(N)
    mem = cupy.cuda.UnownedMemory(p, N, None)
    arr = cupy.ndarray((N,), cupy.uint8, cupy.cuda.MemoryPointer(mem, 0))
    runtime.free(p)  # E: OWN204
    arr.fill(1)
    runtime.deviceSynchronize()
    return int(arr[:16].sum())
