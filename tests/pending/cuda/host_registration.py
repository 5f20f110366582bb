"""Pending (rules/CUDA-NEEDS.md, feature 4): host registrations as mappings.
`cudaHostRegister(ptr, size, flags)` / `cuMemHostRegister(p, size, flags)`
map a host range for the device until `cudaHostUnregister(ptr)` /
`cuMemHostUnregister(p)`: a second registration overlapping a live one is
OWN301, a second unregistration OWN201. The memory itself is not released
(clean look-alikes: tests/fixtures/cuda/host_registration_clean.py).

Runnable on a GPU: gpu/run_cuda_examples.py calls each `bug_*` function in
its own process and records what the runtime returns.
"""
import ctypes
import mmap

from cuda.bindings import driver, runtime

PAGE = mmap.PAGESIZE


def bug_register_overlap():
    buf = mmap.mmap(-1, 4 * PAGE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    (first,) = runtime.cudaHostRegister(base, 2 * PAGE, 0)
    (second,) = runtime.cudaHostRegister(base + PAGE, 2 * PAGE, 0)  # E: OWN301
    (done,) = runtime.cudaHostUnregister(base)
    return first, second, done


def bug_double_unregister():
    buf = mmap.mmap(-1, 2 * PAGE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    (registered,) = runtime.cudaHostRegister(base, 2 * PAGE, 0)
    (first,) = runtime.cudaHostUnregister(base)
    (second,) = runtime.cudaHostUnregister(base)  # E: OWN201
    return registered, first, second


def _context():
    (err,) = driver.cuInit(0)
    err, dev = driver.cuDeviceGet(0)
    err, ctx = driver.cuDevicePrimaryCtxRetain(dev)
    (err,) = driver.cuCtxSetCurrent(ctx)
    return dev


def bug_driver_register_overlap():
    _context()
    buf = mmap.mmap(-1, 4 * PAGE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    (first,) = driver.cuMemHostRegister(base, 2 * PAGE, 0)
    (second,) = driver.cuMemHostRegister(base + PAGE, 2 * PAGE, 0)  # E: OWN301
    (done,) = driver.cuMemHostUnregister(base)
    return first, second, done


def bug_driver_double_unregister():
    _context()
    buf = mmap.mmap(-1, 2 * PAGE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    (registered,) = driver.cuMemHostRegister(base, 2 * PAGE, 0)
    (first,) = driver.cuMemHostUnregister(base)
    (second,) = driver.cuMemHostUnregister(base)  # E: OWN201
    return registered, first, second
