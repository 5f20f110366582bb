"""OWN205: events made only to time a loop, never destroyed. The stream is
destroyed, `start` and `end` are not; both lose their last reference at the
`return` (one finding per handle, same line).

Source: leofang/cuda-python, cuda_bindings/examples/2_Concepts_and_Techniques/
stream_ordered_allocation.py, `stream_ordered_allocation_post_sync` (reduced;
`check_cuda_errors` is cuda/bindings/_example_helpers/helper_cuda.py's).
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


def stream_ordered_allocation_post_sync(nelem, iterations):
    num_bytes = nelem * 4
    stream = check_cuda_errors(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))
    start = check_cuda_errors(cudart.cudaEventCreate())
    end = check_cuda_errors(cudart.cudaEventCreate())
    check_cuda_errors(cudart.cudaEventRecord(start, stream))
    for _ in range(iterations):
        d_a = check_cuda_errors(cudart.cudaMallocAsync(num_bytes, stream))
        check_cuda_errors(cudart.cudaMemsetAsync(d_a, 0, num_bytes, stream))
        check_cuda_errors(cudart.cudaFreeAsync(d_a, stream))
        check_cuda_errors(cudart.cudaStreamSynchronize(stream))
    check_cuda_errors(cudart.cudaEventRecord(end, stream))
    check_cuda_errors(cudart.cudaEventSynchronize(end))
    msec_total = check_cuda_errors(cudart.cudaEventElapsedTime(start, end))
    check_cuda_errors(cudart.cudaStreamDestroy(stream))
    return msec_total / iterations  # E: OWN205
