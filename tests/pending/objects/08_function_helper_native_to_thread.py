"""Issue 22 point 2 (helper function, the path already followed): `native_queue` returns `get_native` of the caller's transferred queue, a runtime-owned handle, which the caller passes to a thread: OWN403 at the Thread call."""
import threading

from sycl.ext.oneapi import level_zero as lz


def native_queue(q):
    return lz.get_native(q)


def start_watchdog(hq, ctx, dev, poll):
    q = lz.make_queue(hq, ctx, device=dev)
    h = native_queue(q)
    watcher = threading.Thread(target=poll, args=(h,), daemon=True)  # E: OWN403
    watcher.start()
    return q, watcher
