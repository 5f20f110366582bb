"""A wrapper class whose close() frees the handle its constructor allocated (issue 23, point 1;
see app.py)."""
import ctypes

from ze import *


class HostBuffer:
    def __init__(self, ctx, n):
        self.ctx = ctx
        self.ptr = ctypes.c_void_p()
        desc = ze_host_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC)
        zeMemAllocHost(ctx, ctypes.byref(desc), n, 64, ctypes.byref(self.ptr))

    def close(self):
        zeMemFree(self.ctx, self.ptr)


def finish(buf: HostBuffer):
    """Closes the wrapper it is given: its caller must not close it again."""
    buf.close()
