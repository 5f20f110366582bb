"""OWN404 with stream-ordered frees (cuda-python's
cuda_bindings/examples/2_Concepts_and_Techniques/stream_ordered_allocation.py: cudaMallocAsync /
cudaFreeAsync on one stream). cudaFreeAsync(p, s) is a release ordered on `s`: work already
queued on `s` runs first, but work queued on another stream is not ordered with it. Freeing on
stream `s2` a block that a copy queued on `s1` still reads, with no event or synchronization
between the streams, frees it under the copy.

Proof: the copy on `s1` is asynchronous and nothing orders `s2` after it (no
cudaStreamWaitEvent, no synchronization) before the free. RULES.md "Asynchronous work keeps its
arguments" ("Stream-ordered releases (`cuMemFreeAsync`) are releases on that stream"); reported
at the free. The clean look-alike (the same stream, or `s2` made to wait on an event of `s1`) is
tests/fixtures/streams/stream_ordered_same_stream.py."""
from cuda.bindings import runtime as cudart


def free_on_other_stream(host, n):
    err, s1 = cudart.cudaStreamCreate()
    err, s2 = cudart.cudaStreamCreate()
    err, d = cudart.cudaMallocAsync(n, s1)
    (err,) = cudart.cudaMemcpyAsync(host, d, n, cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost, s1)
    (err,) = cudart.cudaFreeAsync(d, s2)  # E: OWN404
    (err,) = cudart.cudaStreamSynchronize(s1)
    (err,) = cudart.cudaStreamSynchronize(s2)
    (err,) = cudart.cudaStreamDestroy(s2)
    (err,) = cudart.cudaStreamDestroy(s1)
