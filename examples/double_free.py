"""Copy a buffer to the device and back through Level Zero host memory.

Two bugs: `upload` frees its staging buffer twice, and `download` frees
`scratch` before the copy that still reads it. ownlint only parses this
program, it never runs it: `ze` need not be installed.
"""
import ctypes

from ze import *

UINT64_MAX = 2**64 - 1


def upload(hctx, hdev, hq, hcl, data):
    n = len(data)
    hdesc = ze_host_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC)
    ddesc = ze_device_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC)
    host = ctypes.c_void_p()
    dev = ctypes.c_void_p()
    zeMemAllocHost(hctx, ctypes.byref(hdesc), n, 64, ctypes.byref(host))
    zeMemAllocDevice(hctx, ctypes.byref(ddesc), n, 64, hdev, ctypes.byref(dev))
    ctypes.memmove(host, data, n)
    zeCommandListAppendMemoryCopy(hcl, dev, host, n, None, 0, None)
    zeCommandListClose(hcl)
    zeCommandQueueExecuteCommandLists(hq, 1, ctypes.byref(hcl), None)
    zeCommandQueueSynchronize(hq, UINT64_MAX)
    zeMemFree(hctx, host)
    zeMemFree(hctx, host)
    return dev


def download(hctx, hdev, hq, hcl, dev, n):
    desc = ze_host_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC)
    out = ctypes.c_void_p()
    scratch = ctypes.c_void_p()
    zeMemAllocHost(hctx, ctypes.byref(desc), n, 64, ctypes.byref(out))
    zeMemAllocHost(hctx, ctypes.byref(desc), n, 64, ctypes.byref(scratch))
    zeCommandListAppendMemoryCopy(hcl, scratch, dev, n, None, 0, None)
    zeMemFree(hctx, scratch)
    zeCommandListAppendMemoryCopy(hcl, out, scratch, n, None, 0, None)
    zeCommandListClose(hcl)
    zeCommandQueueExecuteCommandLists(hq, 1, ctypes.byref(hcl), None)
    zeCommandQueueSynchronize(hq, UINT64_MAX)
    data = ctypes.string_at(out, n)
    zeMemFree(hctx, out)
    return data
