"""Issue 22 point 6 (conformance inputs through a helper): `host_pointer` returns the address of the numpy array it is given, so the SYCL buffer is built over memory numpy holds: OWN602 at make_buffer."""
import ctypes

import numpy as np
from sycl.ext.oneapi import level_zero as lz


def host_pointer(arr):
    return ctypes.c_void_p(arr.ctypes.data)


def wrap(ctx, n):
    host = np.empty(n, dtype=np.float32)
    buf = lz.make_buffer(host_pointer(host), ctx)  # E: OWN602
    return buf, host
