"""OWN201 through a finalizer queue (numba-cuda numba_cuda/numba/cuda/cudadrv/driver.py:
_alloc_finalizer's core() does `deallocations.add_item(driver.cuMemFree, ptr, size)`, and
_PendingDeallocs.clear() later calls `dtor(handle)` for each queued item). A pointer queued for
release and then freed explicitly is freed again when the queue is flushed (at the next
add_item() over the threshold, or at the context's reset).

Proof: add_item(dtor, handle) queues `dtor(handle)` unconditionally, and the queue is flushed on
some later path (the queue's clear() runs every queued release). RULES.md "Death runs the
destructor": "the finalizers a model names (a finalizer queue that releases later, such as
`deallocations.add_item(driver.cuMemFree, ptr)`)"; needs a model entry naming `add_item` with
its release-function argument 0 and handle argument 1 (ISSUE32.md). Reported at the explicit
free. The clean look-alike is tests/fixtures/destructors/finalizer_queue_once.py."""
from cuda.bindings import driver


def alloc_and_free(context, size):
    err, ptr = driver.cuMemAlloc(size)
    context.deallocations.add_item(driver.cuMemFree, ptr, size)
    (err,) = driver.cuMemsetD8(ptr, 0, size)
    (err,) = driver.cuMemFree(ptr)  # E: OWN201
