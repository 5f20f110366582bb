"""OWN205 through a callee's early return: `simple_free_multi_device_mmap`
(mmap_helpers.py) returns before `cuMemAddressFree` when `cuMemUnmap`
fails, and `run` ignores the status it returns, so on that path the range
is lost when `run` ends. Reported at the call, with the callee's early
`return` as related location (tests/pending/ISSUE31.md, "through a
callee"); the call is also `run`'s last statement.

Source: leofang/cuda-python, cuda_bindings/examples/0_Introduction/
vector_add_mmap.py, `main` (reduced: kernels and copies are a parameter).
"""
from mmap_helpers import simple_free_multi_device_mmap, simple_malloc_mmap


def run(size, prop, work):
    status, dptr, allocation_size = simple_malloc_mmap(size, prop)
    if dptr is None:
        return status
    work(dptr, allocation_size)
    simple_free_multi_device_mmap(dptr, allocation_size)  # E: OWN205
