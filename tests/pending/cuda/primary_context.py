"""Pending (rules/CUDA-NEEDS.md, feature 3): the primary context is a
reference counted by device. `cuDevicePrimaryCtxRetain(dev)` returns the
context; `cuDevicePrimaryCtxRelease(dev)` gives one reference back, named by
the device: more releases than retains is OWN201 (at the extra release).
Clean look-alikes: tests/fixtures/cuda/primary_context_clean.py.

Runnable on a GPU: gpu/run_cuda_examples.py calls each `bug_*` function in
its own process and records what the runtime returns.
"""
from cuda.bindings import driver


def bug_primary_double_release():
    (err,) = driver.cuInit(0)
    err, dev = driver.cuDeviceGet(0)
    err, ctx = driver.cuDevicePrimaryCtxRetain(dev)
    (first,) = driver.cuDevicePrimaryCtxRelease(dev)
    (second,) = driver.cuDevicePrimaryCtxRelease(dev)  # E: OWN201
    return err, first, second


def bug_primary_ctx_used_after_release():
    (err,) = driver.cuInit(0)
    err, dev = driver.cuDeviceGet(0)
    err, ctx = driver.cuDevicePrimaryCtxRetain(dev)
    (released,) = driver.cuDevicePrimaryCtxRelease(dev)
    (used,) = driver.cuCtxSetCurrent(ctx)  # E: OWN203
    err2, dptr = driver.cuMemAlloc(1024)
    return err, released, used, err2
