"""OWN205 (a field overwritten while it holds a live handle): `__init__`
creates the stream and `__enter__` creates another into the same field
without destroying the first, so `with CudaStreamContext() as s:` loses the
stream made by the constructor. Reported at the `with` (the call site of
`__enter__` in the caller; the assignment in `__enter__` is the related
location: tests/pending/ISSUE31.md, "through a callee").

Source: NVIDIA/TensorRT, samples/python/common_runtime.py, `CudaStreamContext`,
with the guard `if self._stream is None:` of its `__enter__` removed (the
guarded original is the clean look-alike
tests/fixtures/leaks/guarded_reenter.py).
"""
from cuda.bindings import runtime as cudart


def cuda_call(call):
    err, res = call[0], call[1:]
    if err.value:
        raise RuntimeError(f"CUDA error code={err.value}")
    if len(res) == 1:
        return res[0]
    elif len(res) == 0:
        return None
    else:
        return res


class CudaStreamContext:
    def __init__(self):
        self._stream = cuda_call(cudart.cudaStreamCreate())

    def __enter__(self):
        self._stream = cuda_call(cudart.cudaStreamCreate())
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if self._stream is not None:
            cuda_call(cudart.cudaStreamDestroy(self._stream))
            self._stream = None

    def synchronize(self):
        cuda_call(cudart.cudaStreamSynchronize(self._stream))


def run(work):
    with CudaStreamContext() as ctx:  # E: OWN205
        work(ctx)
        ctx.synchronize()
