"""Issue 22 point 2 (objects): `map_header` maps [base, base + 2*P) of the object's own mmap and `map_body` maps [base + P, base + 5*P) of the same buffer; called in turn on one object, the second mapping overlaps the live first: OWN301 at the second call."""
import ctypes
import mmap

from ze import *

PAGE = mmap.PAGESIZE


def map_range(hctx, addr, nbytes):
    ext = ze_external_memmap_sysmem_ext_desc_t(stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC, pNext=None, pSystemMemory=addr, size=nbytes)
    desc = ze_host_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, pNext=ctypes.cast(ctypes.pointer(ext), ctypes.c_void_p), flags=0)
    ptr = ctypes.c_void_p()
    zeMemAllocHost(hctx, ctypes.byref(desc), nbytes, PAGE, ctypes.byref(ptr))
    return ptr


class Staging:
    def __init__(self, hctx):
        self.hctx = hctx
        self.buf = mmap.mmap(-1, 8 * PAGE)
        self.base = ctypes.addressof(ctypes.c_char.from_buffer(self.buf))
        self.header = None
        self.body = None

    def map_header(self):
        self.header = map_range(self.hctx, self.base, 2 * PAGE)

    def map_body(self):
        self.body = map_range(self.hctx, self.base + PAGE, 4 * PAGE)

    def unmap(self):
        zeMemFree(self.hctx, self.body)
        zeMemFree(self.hctx, self.header)


def upload(hctx, hcl, dst):
    s = Staging(hctx)
    s.map_header()
    s.map_body()  # E: OWN301
    zeCommandListAppendMemoryCopy(hcl, dst, s.body, 4 * PAGE, None, 0, None)
    s.unmap()
