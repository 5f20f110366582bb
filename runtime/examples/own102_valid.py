"""OWN102 fixed: the memory object is returned, and the pointer is read while it lives."""

import ctypes

import dpctl
import dpctl.memory

NBYTES = 1 << 20


def staging_memory(q):
    mem = dpctl.memory.MemoryUSMShared(NBYTES, queue=q)
    mem.memset(0x5A)
    return mem


q = dpctl.SyclQueue()
mem = staging_memory(q)
data = ctypes.string_at(mem._pointer, 8)
assert data == b"Z" * 8, data
print(data)
