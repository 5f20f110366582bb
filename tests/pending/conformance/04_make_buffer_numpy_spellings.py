"""Issue 22 point 6 (conformance inputs): numpy holds the memory of `np.arange` results, of a slice or a reshape of a numpy array, and `arr.ctypes.data_as(c_void_p)` is its address like `arr.ctypes.data`; make_buffer over any of them is OWN602."""
import ctypes

import numpy as np
from sycl.ext.oneapi import level_zero as lz


def ramp(ctx, n):
    host = np.arange(n, dtype=np.float32)
    buf = lz.make_buffer(ctypes.c_void_p(host.ctypes.data), ctx)  # E: OWN602
    return buf, host


def data_as(ctx, n):
    host = np.empty(n, dtype=np.float32)
    buf = lz.make_buffer(host.ctypes.data_as(ctypes.c_void_p), ctx)  # E: OWN602
    return buf, host


def slice_after_header(ctx, n):
    host = np.zeros(n + 16, dtype=np.float32)
    body = host[16:]
    buf = lz.make_buffer(ctypes.c_void_p(body.ctypes.data), ctx)  # E: OWN602
    return buf, host


def reshaped(ctx, n):
    grid = np.empty(4 * n, dtype=np.float32).reshape(4, n)
    buf = lz.make_buffer(ctypes.c_void_p(grid.ctypes.data), ctx)  # E: OWN602
    return buf, grid
