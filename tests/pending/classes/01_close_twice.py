"""OWN201 / OWN203 through objects of project classes (issue 23, point 1): a wrapper whose
constructor allocates into self.ptr and whose close() frees it, closed twice, or used (its
pointer, another method) after close()/release()/shutdown(). Proof: the receiver's class is
known from `x = C(...)`, and close() frees self.ptr on every path through it, so the second
call frees the same handle again on the straight-line path (RULES.md "objects of project
classes"; reported at the second call, or at the use)."""
import ctypes

from ze import *

INF = 2**64 - 1
lib = ctypes.CDLL("./libfill.so")


class HostBuffer:
    def __init__(self, ctx, n):
        self.ctx = ctx
        self.n = n
        self.ptr = ctypes.c_void_p()
        desc = ze_host_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC)
        zeMemAllocHost(ctx, ctypes.byref(desc), n, 64, ctypes.byref(self.ptr))

    def fill(self, value):
        lib.fill_bytes(self.ptr, value, self.n)

    def close(self):
        zeMemFree(self.ctx, self.ptr)


class DeviceArray:
    def __init__(self, ctx, dev, n):
        self.ctx = ctx
        self.ptr = ctypes.c_void_p()
        desc = ze_device_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC)
        zeMemAllocDevice(ctx, ctypes.byref(desc), n, 64, dev, ctypes.byref(self.ptr))

    def release(self):
        zeMemFree(self.ctx, self.ptr)


class Pipeline:
    def __init__(self, hctx, hdev):
        self.hq = ze_command_queue_handle_t()
        desc = ze_command_queue_desc_t(stype=ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC)
        zeCommandQueueCreate(hctx, hdev, ctypes.byref(desc), ctypes.byref(self.hq))

    def run(self, lists):
        zeCommandQueueExecuteCommandLists(self.hq, len(lists), lists, None)
        zeCommandQueueSynchronize(self.hq, INF)

    def shutdown(self):
        zeCommandQueueDestroy(self.hq)


def close_twice(ctx, n):
    buf = HostBuffer(ctx, n)
    buf.fill(0)
    buf.close()
    buf.close()  # E: OWN201


def close_twice_on_error(ctx, n, data):
    buf = HostBuffer(ctx, n)
    try:
        lib.copy_in(buf.ptr, data, n)
    except OSError:
        buf.close()
    buf.close()  # E: OWN201


def pointer_after_release(ctx, dev, n):
    arr = DeviceArray(ctx, dev, n)
    lib.zero_device(arr.ptr, n)
    arr.release()
    lib.zero_device(arr.ptr, n)  # E: OWN203


def method_after_shutdown(hctx, hdev, lists):
    pipe = Pipeline(hctx, hdev)
    pipe.run(lists)
    pipe.shutdown()
    pipe.run(lists)  # E: OWN203
