"""Issue 22 point 1 (owner rebound in a loop): `q` is rebound to a new dpctl queue each round, which kills the previous queue (its last reference), yet the raw pointer borrowed from it (`addressof_ref()`) is handed to the library in the next round: OWN102 at that use."""
import dpctl


def pipelined_rounds(dev, rounds, lib):
    prev_ref = None
    for work in rounds:
        q = dpctl.SyclQueue(dev)
        ref = q.addressof_ref()
        lib.enqueue(ref, work)
        if prev_ref is not None:
            lib.wait_queue(prev_ref)  # E: OWN102
        prev_ref = ref
