"""OWN206 (preview, OWN206 selected), the shape of nearly every sample
script: four buffers made at the top of `main`, freed at its end, and a
call in between to a project function that may raise (its status checks
raise `RuntimeError`). One finding per handle, at the first call after its
creation that may raise: for the first three buffers that is the next
checked allocation (when it fails, the earlier buffers leak), for the last
the project call; inside `cuda_graphs_manual` the stream's first checked
call.

Source: leofang/cuda-python, cuda_bindings/examples/3_CUDA_Features/
simple_cuda_graphs.py, `main` and `cuda_graphs_manual` (reduced: the
graph-building body is one checked call).
"""
from cuda.bindings import runtime as cudart


def check_cuda_errors(result):
    if result[0].value:
        raise RuntimeError(f"CUDA error code={result[0].value}")
    if len(result) == 1:
        return None
    elif len(result) == 2:
        return result[1]
    else:
        return result[1:]


def cuda_graphs_manual(input_vec_h, input_vec_d, output_vec_d, result_d, size):
    stream_for_graph = check_cuda_errors(cudart.cudaStreamCreate())
    kind = cudart.cudaMemcpyKind.cudaMemcpyDefault
    check_cuda_errors(cudart.cudaMemcpyAsync(input_vec_d, input_vec_h, size * 4, kind, stream_for_graph))  # E: OWN206
    check_cuda_errors(cudart.cudaStreamSynchronize(stream_for_graph))
    check_cuda_errors(cudart.cudaStreamDestroy(stream_for_graph))


def main(size, max_blocks):
    input_vec_h = check_cuda_errors(cudart.cudaMallocHost(size * 4))
    input_vec_d = check_cuda_errors(cudart.cudaMalloc(size * 4))  # E: OWN206
    output_vec_d = check_cuda_errors(cudart.cudaMalloc(max_blocks * 8))  # E: OWN206
    result_d = check_cuda_errors(cudart.cudaMalloc(8))  # E: OWN206
    cuda_graphs_manual(input_vec_h, input_vec_d, output_vec_d, result_d, size)  # E: OWN206
    check_cuda_errors(cudart.cudaFree(input_vec_d))
    check_cuda_errors(cudart.cudaFree(output_vec_d))
    check_cuda_errors(cudart.cudaFree(result_d))
    check_cuda_errors(cudart.cudaFreeHost(input_vec_h))
