"""OWN205: the timing events are destroyed, the stream never is, and the
function has two `return`s. One finding per handle, at the first exit in
source order where it is lost (tests/pending/ISSUE31.md, "several exits").

Source: leofang/cuda-python, cuda_bindings/examples/3_CUDA_Features/
global_to_shmem_async_copy.py, `matrix_multiply` (reduced: the kernels,
host buffers and the result check are a helper call).
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


def matrix_multiply(run_kernels, verify):
    start = check_cuda_errors(cudart.cudaEventCreate())
    stop = check_cuda_errors(cudart.cudaEventCreate())
    stream = check_cuda_errors(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))

    check_cuda_errors(cudart.cudaEventRecord(start, stream))
    run_kernels(stream)
    check_cuda_errors(cudart.cudaEventRecord(stop, stream))
    check_cuda_errors(cudart.cudaEventSynchronize(stop))
    msec_total = check_cuda_errors(cudart.cudaEventElapsedTime(start, stop))
    check_cuda_errors(cudart.cudaStreamSynchronize(stream))
    correct = verify(msec_total)

    check_cuda_errors(cudart.cudaEventDestroy(start))
    check_cuda_errors(cudart.cudaEventDestroy(stop))
    if correct:
        return 0  # E: OWN205
    return -1
