"""OWN205: a fork/join stream capture. `stream1`, `stream2` and the graphs are
destroyed; `stream3` and the three events that order the fork and the join
are not. The function falls off its end: the finding is on its last
statement (tests/pending/ISSUE31.md, "end of a function").

Source: leofang/cuda-python, cuda_bindings/examples/3_CUDA_Features/
simple_cuda_graphs.py, `cuda_graphs_using_stream_capture` (reduced: kernels
and host copies removed, the handle lifetimes kept).
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


def cuda_graphs_using_stream_capture(output_vec_d, result_d, nbytes, launches):
    stream1 = check_cuda_errors(cudart.cudaStreamCreate())
    stream2 = check_cuda_errors(cudart.cudaStreamCreate())
    stream3 = check_cuda_errors(cudart.cudaStreamCreate())
    fork_stream_event = check_cuda_errors(cudart.cudaEventCreate())
    memset_event1 = check_cuda_errors(cudart.cudaEventCreate())
    memset_event2 = check_cuda_errors(cudart.cudaEventCreate())

    mode = cudart.cudaStreamCaptureMode.cudaStreamCaptureModeGlobal
    check_cuda_errors(cudart.cudaStreamBeginCapture(stream1, mode))
    check_cuda_errors(cudart.cudaEventRecord(fork_stream_event, stream1))
    check_cuda_errors(cudart.cudaStreamWaitEvent(stream2, fork_stream_event, 0))
    check_cuda_errors(cudart.cudaStreamWaitEvent(stream3, fork_stream_event, 0))
    check_cuda_errors(cudart.cudaMemsetAsync(output_vec_d, 0, nbytes, stream2))
    check_cuda_errors(cudart.cudaEventRecord(memset_event1, stream2))
    check_cuda_errors(cudart.cudaMemsetAsync(result_d, 0, 8, stream3))
    check_cuda_errors(cudart.cudaEventRecord(memset_event2, stream3))
    check_cuda_errors(cudart.cudaStreamWaitEvent(stream1, memset_event1, 0))
    check_cuda_errors(cudart.cudaStreamWaitEvent(stream1, memset_event2, 0))
    graph = check_cuda_errors(cudart.cudaStreamEndCapture(stream1))

    graph_exec = check_cuda_errors(cudart.cudaGraphInstantiate(graph, 0))
    for _ in range(launches):
        check_cuda_errors(cudart.cudaGraphLaunch(graph_exec, stream1))
    check_cuda_errors(cudart.cudaStreamSynchronize(stream1))

    check_cuda_errors(cudart.cudaGraphExecDestroy(graph_exec))
    check_cuda_errors(cudart.cudaGraphDestroy(graph))
    check_cuda_errors(cudart.cudaStreamDestroy(stream1))
    check_cuda_errors(cudart.cudaStreamDestroy(stream2))  # E: OWN205
