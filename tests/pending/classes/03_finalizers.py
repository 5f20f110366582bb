"""OWN201 with releases that happen when the object dies (issue 23, point 1): a constructor that
registers weakref.finalize(self, zeMemFree, ctx, self.ptr), or a __del__ that frees self.ptr with
no guard, frees the handle when the object dies; an explicit free of the same handle (directly or
through a method) is then a double free whatever happens in between. Proof: the finalizer or
__del__ runs unconditionally at the object's death and the explicit free is on the straight-line
path (RULES.md "objects of project classes"; reported at the explicit release)."""
import ctypes
import weakref

from ze import *

lib = ctypes.CDLL("./libfill.so")


class FinalizedBuffer:
    def __init__(self, ctx, n):
        self.ptr = ctypes.c_void_p()
        desc = ze_host_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC)
        zeMemAllocHost(ctx, ctypes.byref(desc), n, 64, ctypes.byref(self.ptr))
        self._finalizer = weakref.finalize(self, zeMemFree, ctx, self.ptr)


class OwnedEvent:
    def __init__(self, hpool, index):
        self.hev = ze_event_handle_t()
        desc = ze_event_desc_t(stype=ZE_STRUCTURE_TYPE_EVENT_DESC, index=index)
        zeEventCreate(hpool, ctypes.byref(desc), ctypes.byref(self.hev))

    def destroy(self):
        zeEventDestroy(self.hev)

    def __del__(self):
        zeEventDestroy(self.hev)


def explicit_free_of_finalized(ctx, n):
    buf = FinalizedBuffer(ctx, n)
    lib.fill_bytes(buf.ptr, 0, n)
    zeMemFree(ctx, buf.ptr)  # E: OWN201


def local_finalizer(ctx, n):
    p = ctypes.c_void_p()
    desc = ze_host_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC)
    zeMemAllocHost(ctx, ctypes.byref(desc), n, 64, ctypes.byref(p))
    holder = lib.make_holder(p)
    weakref.finalize(holder, zeMemFree, ctx, p)
    lib.fill_bytes(p, 0, n)
    zeMemFree(ctx, p)  # E: OWN201


def destroy_then_del(hpool):
    ev = OwnedEvent(hpool, 0)
    zeEventHostSignal(ev.hev)
    ev.destroy()  # E: OWN201
