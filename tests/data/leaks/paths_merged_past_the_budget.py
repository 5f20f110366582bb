"""Clean: where the paths of a function were merged past the budget of 128,
what a merged path no longer shows (the list that holds a handle, forgotten
because it differs between paths) proves nothing, so a handle rebound there
is no leak. Reduced from NVIDIA/cuda-python
cuda_bindings/tests/test_cufile.py, `test_batch_io_basic`: buffers allocated
in loops and kept in two lists, the name `buf` rebound by the `for` of the
`finally` that frees them all (a false OWN205 once). The function gets its
budget note instead. A test, not a fixture (fixtures have no budget
note): tests/test_leaks.py."""

from cuda.bindings import driver


def batch(c0, c1, c2, c3, c4, c5, c6, c7, c8, n):
    buffers = []
    for i in range(n):
        err, buf = driver.cuMemAlloc(64)
        assert err == driver.CUresult.CUDA_SUCCESS
        buffers.append(buf)
    try:
        if c0:
            err, a0 = driver.cuMemAlloc(8)
        if c1:
            err, a1 = driver.cuMemAlloc(8)
        if c2:
            err, a2 = driver.cuMemAlloc(8)
        if c3:
            err, a3 = driver.cuMemAlloc(8)
        if c4:
            err, a4 = driver.cuMemAlloc(8)
        if c5:
            err, a5 = driver.cuMemAlloc(8)
        if c6:
            err, a6 = driver.cuMemAlloc(8)
        if c7:
            err, a7 = driver.cuMemAlloc(8)
        read_buffers = []
        for i in range(n):
            err, buf = driver.cuMemAlloc(64)
            assert err == driver.CUresult.CUDA_SUCCESS
            read_buffers.append(buf)
    finally:
        for buf in buffers + read_buffers:
            driver.cuMemFree(buf)
