"""Issue 22 point 1 (owner rebound in a loop): each iteration rebinds `q` to a new make_queue owner, so the previous queue dies, and the native handle borrowed from it (get_native, not made with keep) is synchronised afterwards: OWN102 at that use."""
from ze import *
from sycl.ext.oneapi import level_zero as lz

UINT64_MAX = 2**64 - 1


def drain_in_turn(native_queues, ctx, dev):
    last = None
    for hq in native_queues:
        q = lz.make_queue(hq, ctx, device=dev)
        if last is not None:
            zeCommandQueueSynchronize(last, UINT64_MAX)  # E: OWN102
        last = lz.get_native(q)
