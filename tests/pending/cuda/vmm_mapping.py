"""Pending (rules/CUDA-NEEDS.md, feature 4): VMM mappings. `cuMemMap(ptr,
size, offset, handle, flags)` maps physical memory at a reserved address
range until `cuMemUnmap(ptr, size)`: mapping over a live mapping is OWN301,
unmapping twice OWN201. The address range stays reserved after the unmap
(cuMemAddressFree comes after): no use after free of `ptr`.

Runnable on a GPU: gpu/run_cuda_examples.py calls each `bug_*` function in
its own process and records what the runtime returns.
"""
from cuda.bindings import driver


def _context():
    (err,) = driver.cuInit(0)
    err, dev = driver.cuDeviceGet(0)
    err, ctx = driver.cuDevicePrimaryCtxRetain(dev)
    (err,) = driver.cuCtxSetCurrent(ctx)
    return dev


def _vmm_prop(dev):
    prop = driver.CUmemAllocationProp()
    prop.type = driver.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    prop.location.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    prop.location.id = int(dev)
    option = driver.CUmemAllocationGranularity_flags.CU_MEM_ALLOC_GRANULARITY_MINIMUM
    err, granularity = driver.cuMemGetAllocationGranularity(prop, option)
    return prop, granularity


def bug_double_unmap():
    dev = _context()
    prop, size = _vmm_prop(dev)
    err, handle = driver.cuMemCreate(size, prop, 0)
    err2, ptr = driver.cuMemAddressReserve(size, 0, 0, 0)
    (mapped,) = driver.cuMemMap(ptr, size, 0, handle, 0)
    (first,) = driver.cuMemUnmap(ptr, size)
    (second,) = driver.cuMemUnmap(ptr, size)  # E: OWN201
    (released,) = driver.cuMemRelease(handle)
    (freed,) = driver.cuMemAddressFree(ptr, size)
    return mapped, first, second, released, freed


def bug_map_over_live_mapping():
    dev = _context()
    prop, size = _vmm_prop(dev)
    err, a = driver.cuMemCreate(size, prop, 0)
    err2, b = driver.cuMemCreate(size, prop, 0)
    err3, ptr = driver.cuMemAddressReserve(size, 0, 0, 0)
    (first,) = driver.cuMemMap(ptr, size, 0, a, 0)
    (second,) = driver.cuMemMap(ptr, size, 0, b, 0)  # E: OWN301
    (unmapped,) = driver.cuMemUnmap(ptr, size)
    (ra,) = driver.cuMemRelease(a)
    (rb,) = driver.cuMemRelease(b)
    (freed,) = driver.cuMemAddressFree(ptr, size)
    return first, second, unmapped, ra, rb, freed
