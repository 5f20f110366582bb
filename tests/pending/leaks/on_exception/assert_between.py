"""OWN206 (preview, OWN206 selected): the pool and the allocation are
released on the normal path, but each is followed by an `assert` that, when
it fails, leaves it unreleased (pytest keeps running the other tests in the
same process). One finding per handle, at its first raising point after
its creation: `assert pool > 0` for the pool, `assert ptr > 0` for the
allocation. CuPy's runtime functions raise on failure, so the allocating
calls' own failure makes nothing.

Source: cupy/cupy, tests/cupy_tests/cuda_tests/test_runtime.py,
`test_mallocFromPoolAsync` (a method of a test class there; the
`cupy.cuda.Stream()` is a parameter here, so that the asserts are the
first calls that may raise).
"""
import cupy
from cupy.cuda import runtime


def test_mallocFromPoolAsync(s):
    props = runtime.MemPoolProps(
        runtime.cudaMemAllocationTypePinned,
        runtime.cudaMemHandleTypeNone,
        runtime.cudaMemLocationTypeDevice,
        0)
    pool = cupy.cuda.runtime.memPoolCreate(props)
    assert pool > 0  # E: OWN206
    ptr = cupy.cuda.runtime.mallocFromPoolAsync(128, pool, s.ptr)
    assert ptr > 0  # E: OWN206
    cupy.cuda.runtime.freeAsync(ptr, s.ptr)
    cupy.cuda.runtime.memPoolDestroy(pool)
