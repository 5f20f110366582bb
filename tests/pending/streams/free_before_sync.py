"""OWN404: memory released while work queued on a stream may still read or write it (issue 32,
"Freed while the GPU still uses it"; the copies and launch of cuda-python's
cuda_bindings/examples/2_Concepts_and_Techniques/stream_ordered_allocation.py, with a synchronous
free where the example frees on the stream, and CuPy's cupy.cuda.runtime spelling). A
cudaMemcpyAsync returns before the copy runs; cudaFree / cudaFreeHost do not wait for other
streams' work on the block (cudaFree may synchronize the device, cudaFreeHost of memory in flight
is undefined); a kernel launched on a stream reads its pointer arguments when it runs.

Proof: each memory object is passed to an asynchronous call naming a stream, and released on the
straight-line path before any synchronization of that stream (or an event recorded after the
work, or the device). RULES.md "Asynchronous work keeps its arguments" (OWN404 for every model
that names a stream argument); reported at the free. The clean look-alike is
tests/fixtures/streams/sync_before_free.py."""
import ctypes

import cupy
from cuda.bindings import driver, runtime as cudart


def device_free_before_sync(host, n):
    err, stream = cudart.cudaStreamCreate()
    err, d = cudart.cudaMalloc(n)
    (err,) = cudart.cudaMemcpyAsync(d, host, n, cudart.cudaMemcpyKind.cudaMemcpyHostToDevice, stream)
    (err,) = cudart.cudaFree(d)  # E: OWN404
    (err,) = cudart.cudaStreamSynchronize(stream)
    (err,) = cudart.cudaStreamDestroy(stream)


def pinned_free_before_sync(d, n):
    err, stream = cudart.cudaStreamCreate()
    err, h = cudart.cudaMallocHost(n)
    (err,) = cudart.cudaMemcpyAsync(h, d, n, cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost, stream)
    (err,) = cudart.cudaFreeHost(h)  # E: OWN404
    (err,) = cudart.cudaStreamSynchronize(stream)
    (err,) = cudart.cudaStreamDestroy(stream)


def kernel_argument_freed(kernel, nelem):
    err, stream = cudart.cudaStreamCreate()
    err, d_a = driver.cuMemAlloc(4 * nelem)
    kernel_args = ((d_a, nelem), (ctypes.c_void_p, ctypes.c_int))
    (err,) = driver.cuLaunchKernel(kernel, 1, 1, 1, 256, 1, 1, 0, stream, kernel_args, 0)
    (err,) = driver.cuMemFree(d_a)  # E: OWN404
    (err,) = cudart.cudaStreamSynchronize(stream)
    (err,) = cudart.cudaStreamDestroy(stream)


def cupy_free_before_sync(src, n):
    stream = cupy.cuda.runtime.streamCreate()
    dst = cupy.cuda.runtime.malloc(n)
    cupy.cuda.runtime.memcpyAsync(dst, src, n, cupy.cuda.runtime.memcpyDeviceToDevice, stream)
    cupy.cuda.runtime.free(dst)  # E: OWN404
    cupy.cuda.runtime.streamSynchronize(stream)
    cupy.cuda.runtime.streamDestroy(stream)
