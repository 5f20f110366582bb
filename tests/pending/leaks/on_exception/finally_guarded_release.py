"""Clean look-alike (a false OWN206 found on real code, pending its fix): a
handle released in `finally` behind `if h is not None` (it may not have
been made when the exception came), and a sample that ends the process with
`sys.exit` (nothing outlives it).

Sources: NVIDIA/TensorRT, samples/python/common_runtime.py `allocate_buffers`
(`owns_stream`, reduced); leofang/cuda-python, cuda_bindings/examples/
3_CUDA_Features/global_to_shmem_async_copy.py `matrix_multiply` (`h_c`, reduced).
"""
import sys

from cuda.bindings import runtime as cudart


def cuda_call(call):
    err, res = call[0], call[1:]
    if err.value:
        raise RuntimeError(f"CUDA error code={err.value}")
    if len(res) == 1:
        res = res[0]
    return res


def shapes(shape_ctx, profile_idx):
    owns_stream = None
    try:
        owns_stream = cuda_call(cudart.cudaStreamCreate())
        shape_ctx.set_optimization_profile_async(profile_idx, owns_stream)
        cuda_call(cudart.cudaStreamSynchronize(owns_stream))
    finally:
        if owns_stream is not None:
            cuda_call(cudart.cudaStreamDestroy(owns_stream))


def sample(n):
    h_c = cuda_call(cudart.cudaMallocHost(n))
    if n > 4:
        print("too large", file=sys.stderr)
        sys.exit(1)
    cuda_call(cudart.cudaFreeHost(h_c))
