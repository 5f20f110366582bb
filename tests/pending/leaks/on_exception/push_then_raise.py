"""OWN206 (preview, OWN206 selected) on a pushed context: pushed when the
stream's context is not current and popped after the query, but a failing
`cuCtxGetDevice` raises in between and the context stays pushed on the
thread. (The counted pair is modelled now, rules/cuda_driver.toml `push` /
`pop`, and checks/counted.py finds its OWN205; the raise paths of this
function reach its exit merged, those that pushed with those that did not,
so the push is forgotten there. When it passes, the finding moves to the
`def` line: OWN206 is reported at the function.)

Source: leofang/cuda-python, cuda_core/cuda/core/_stream.pyx,
`Stream_ensure_ctx_device` (Cython: `HANDLE_RETURN` raises), written in
Python with cuda.bindings and a raising check.
"""
from cuda.bindings import driver


def handle_return(err):
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(err)


def stream_device_id(stream_ctx, current_ctx):
    switch_context = int(stream_ctx) != int(current_ctx)
    if switch_context:
        (err,) = driver.cuCtxPushCurrent(stream_ctx)
        handle_return(err)
    err, target_dev = driver.cuCtxGetDevice()
    handle_return(err)  # E: OWN206
    if switch_context:
        err, ctx = driver.cuCtxPopCurrent()
        handle_return(err)
    return int(target_dev)
