"""OWN102 dangling-handle: a USM pointer returned without the memory that owns it."""

import ctypes

import dpctl
import dpctl.memory

NBYTES = 1 << 20  # large enough that freeing it unmaps the pages


def staging_pointer(q):
    mem = dpctl.memory.MemoryUSMShared(NBYTES, queue=q)
    mem.memset(0x5A)
    return mem._pointer  # E: OWN102


q = dpctl.SyclQueue()
ptr = staging_pointer(q)
print("reading", hex(ptr), flush=True)
print(ctypes.string_at(ptr, 8))
