"""OWN205 (a loop that re-creates the handle each iteration): an event is
created on every iteration to time it, and only the last one is destroyed
after the loop; each rebinding of `stop` loses the previous iteration's
event. Reported at the assignment in the loop.

Source: a variant of leofang/cuda-python, cuda_bindings/examples/
2_Concepts_and_Techniques/stream_ordered_allocation.py,
`stream_ordered_allocation_post_sync` (there the two events are made once,
before the loop); the per-iteration event is added to show the shape, no
repository was found with exactly this code.
"""
from cuda.bindings import runtime as cudart


def timed_iterations(stream, iterations, step):
    err, start = cudart.cudaEventCreate()
    (err,) = cudart.cudaEventRecord(start, stream)
    times = []
    for _ in range(iterations):
        step(stream)
        err, stop = cudart.cudaEventCreate()  # E: OWN205
        (err,) = cudart.cudaEventRecord(stop, stream)
        (err,) = cudart.cudaEventSynchronize(stop)
        err, ms = cudart.cudaEventElapsedTime(start, stop)
        times.append(ms)
    (err,) = cudart.cudaEventDestroy(stop)
    (err,) = cudart.cudaEventDestroy(start)
    return times
