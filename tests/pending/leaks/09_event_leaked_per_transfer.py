"""OWN205: an event created on every cross-device copy, recorded and waited
on, never destroyed: a library's hot path leaks one event per transfer. The
method falls off its end: the finding is on its last statement.

Source: tinygrad/tinygrad, tinygrad/runtime/ops_cuda.py,
`CUDAAllocator._transfer` (plain ctypes through tinygrad's generated
`tinygrad.runtime.autogen.cuda`). Reduced: the original writes
`ctypes.byref(sync_event := cuda.CUevent())` inside the call; here the
event is bound first.
"""
import ctypes

from tinygrad.runtime.autogen import cuda


def check(status):
    if status != 0:
        raise RuntimeError(f"CUDA Error {status}")


class CUDAAllocator:
    def _transfer(self, dest, src, sz, src_dev, dest_dev):
        check(cuda.cuCtxSetCurrent(src_dev.context))
        sync_event = cuda.CUevent()
        check(cuda.cuEventCreate(ctypes.byref(sync_event), 0))
        check(cuda.cuMemcpyDtoDAsync_v2(dest, src, sz, None))
        check(cuda.cuEventRecord(sync_event, None))
        check(cuda.cuCtxSetCurrent(dest_dev.context))
        check(cuda.cuStreamWaitEvent(None, sync_event, 0))  # E: OWN205
