"""OWN102: a raw USM address borrowed from a dpctl memory object or array outlives its owner
(issue 23, point 2). dpctl.memory.MemoryUSM* and dpctl.tensor/dpnp arrays free their USM
allocation when the Python object dies (API.md section 4, "USM memory owners"); mem._pointer,
arr.__sycl_usm_array_interface__["data"][0] and ctypes.c_void_p(...) of them are borrowed like
addressof_ref(). Proof: the owner is a local whose last reference is deleted or rebound, or that
dies at the `return`, with no reference escaping (RULES.md "owner death"); reported at the use or
the return."""
import ctypes

import dpctl
import dpctl.memory
import dpctl.tensor as dpt
import dpnp

lib = ctypes.CDLL("./libkernels.so")


def scratch_pointer(q, n):
    mem = dpctl.memory.MemoryUSMDevice(n, queue=q)
    lib.zero_device(ctypes.c_void_p(mem._pointer), n)
    return ctypes.c_void_p(mem._pointer)  # E: OWN102


def shared_address(n):
    mem = dpctl.memory.MemoryUSMShared(n)
    addr = mem._pointer
    return addr  # E: OWN102


def interface_pointer_after_del(q, n):
    arr = dpt.empty(n, dtype="f4", sycl_queue=q)
    ptr = arr.__sycl_usm_array_interface__["data"][0]
    lib.fill_f32(ctypes.c_void_p(ptr), 1.0, n)
    del arr
    lib.fill_f32(ctypes.c_void_p(ptr), 0.0, n)  # E: OWN102


def pointer_after_rebinding(q, n):
    host = dpctl.memory.MemoryUSMHost(n, queue=q)
    p = ctypes.c_void_p(host._pointer)
    host = None
    lib.read_host(p, n)  # E: OWN102


def dpnp_array_dies_on_one_path(q, n, reuse):
    a = dpnp.zeros(n, sycl_queue=q)
    p = a.__sycl_usm_array_interface__["data"][0]
    if not reuse:
        del a
    lib.fill_f32(ctypes.c_void_p(p), 2.0, n)  # E: OWN102


def pointer_of_temporary(q, n):
    p = dpctl.memory.MemoryUSMDevice(n, queue=q)._pointer
    lib.zero_device(ctypes.c_void_p(p), n)  # E: OWN102
