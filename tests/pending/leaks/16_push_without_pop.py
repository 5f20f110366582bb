"""OWN205 (a counted handle left above its start): when the stream's
context is not current it is pushed, and a failed `cuCtxGetDevice` returns
before the matching pop, leaving the context pushed on the calling thread.
Reported at that `return`. (Needs push/pop model data: cuCtxPushCurrent /
cuCtxPopCurrent are not in rules/cuda_driver.toml yet.)

Source: leofang/cuda-python, cuda_core/cuda/core/_stream.pyx,
`Stream_ensure_ctx_device` (Cython, `HANDLE_RETURN` raising), written with
cuda.bindings' status tuples and an error `return` instead of the raise;
the raising form is tests/pending/leaks/on_exception/push_then_raise.py.
"""
from cuda.bindings import driver


def stream_device_id(stream_ctx, current_ctx):
    switch_context = int(stream_ctx) != int(current_ctx)
    if switch_context:
        (err,) = driver.cuCtxPushCurrent(stream_ctx)
        if err != driver.CUresult.CUDA_SUCCESS:
            return -1
    err, target_dev = driver.cuCtxGetDevice()
    if err != driver.CUresult.CUDA_SUCCESS:
        return -1  # E: OWN205
    if switch_context:
        err, ctx = driver.cuCtxPopCurrent()
    return int(target_dev)
