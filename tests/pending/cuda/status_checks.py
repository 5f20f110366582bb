"""Pending (rules/CUDA-NEEDS.md, feature 2): a failed status means nothing
happened. `(err,) = cudaFree(p)` that did not return success freed nothing,
so freeing again on that branch is no double free. This clean program gets
a false OWN201 today.

Runnable on a GPU: gpu/run_cuda_examples.py calls each `clean_*` function in
its own process and records what the runtime returns.
"""
from cuda.bindings import runtime

N = 1 << 20


def _release(p):
    (err,) = runtime.cudaFree(p)
    if err != runtime.cudaError_t.cudaSuccess:
        runtime.cudaDeviceSynchronize()
        (err,) = runtime.cudaFree(p)
    return err


def clean_retry_a_failed_free():
    err, p = runtime.cudaMalloc(N)
    return err, _release(p)
