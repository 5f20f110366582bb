"""OWN201 through a context manager (issue 23, point 1): __exit__ frees the handle __enter__
allocated into self.ptr, so `with Staging(...) as s:` frees s.ptr when the block ends; an
explicit zeMemFree(ctx, s.ptr) after the block frees it again. Proof: __exit__ frees on every
path and the explicit free follows on the straight-line path (RULES.md "objects of project
classes": "a handle __exit__ frees is freed at the end of the with block"; reported at the
second free)."""
import ctypes

from ze import *

lib = ctypes.CDLL("./libfill.so")


class Staging:
    def __init__(self, ctx, n):
        self.ctx = ctx
        self.n = n
        self.ptr = ctypes.c_void_p()

    def __enter__(self):
        desc = ze_host_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC)
        zeMemAllocHost(self.ctx, ctypes.byref(desc), self.n, 64, ctypes.byref(self.ptr))
        return self

    def __exit__(self, *exc):
        zeMemFree(self.ctx, self.ptr)
        return False


def upload(ctx, data, n):
    with Staging(ctx, n) as s:
        lib.copy_in(s.ptr, data, n)
    zeMemFree(ctx, s.ptr)  # E: OWN201


def upload_then_read(ctx, data, n):
    with Staging(ctx, n) as s:
        lib.copy_in(s.ptr, data, n)
    return lib.checksum(s.ptr, n)  # E: OWN203
