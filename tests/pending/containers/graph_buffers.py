"""OWN201 / OWN203 on handles held in list elements (cuda-python's
cuda_bindings/tests/test_cuda.py, test_cuda_graph's `buffers` list of (host, device) pairs,
cleaned up with `cuda.cuMemFree(buffers[0][1])`; issue 32: seeded releases of container elements
were missed). A device pointer stored in a list element, freed through the element, and freed or
read again through the same element.

Proof: `buffers` is a local list, built by appending tuples in a loop whose index is not used
again, and not passed to any call that may change it; `buffers[0][1]` names the same element
each time (constant subscripts), so the second free frees the same pointer. RULES.md "Handles in
containers and fields" (list, tuple and dict elements, constant keys); reported at the second
free, and at the use. The clean look-alike is tests/fixtures/containers/elements_once.py."""
import numpy as np
from cuda.bindings import driver as cuda


def cleanup_twice(size):
    buffers = []
    for value in range(2):
        err, device = cuda.cuMemAlloc(size)
        host = np.full(size, value).astype(np.uint8)
        buffers += [(host, device)]
    (err,) = cuda.cuMemFree(buffers[0][1])
    (err,) = cuda.cuMemFree(buffers[1][1])
    (err,) = cuda.cuMemFree(buffers[0][1])  # E: OWN201


def read_after_cleanup(size):
    buffers = []
    for value in range(2):
        err, device = cuda.cuMemAlloc(size)
        host = np.full(size, value).astype(np.uint8)
        buffers.append((host, device))
    (err,) = cuda.cuMemFree(buffers[0][1])
    (err,) = cuda.cuMemcpyDtoH(buffers[0][0], buffers[0][1], size)  # E: OWN203
    (err,) = cuda.cuMemFree(buffers[1][1])
