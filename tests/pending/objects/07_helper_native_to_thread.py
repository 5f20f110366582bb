"""Issue 22 point 2 (objects): a method returns `get_native` of the queue its object made with transfer, a runtime-owned handle; the caller hands it to an executor: OWN403 at `pool.submit`."""
from concurrent.futures import ThreadPoolExecutor

from sycl.ext.oneapi import level_zero as lz


class Engine:
    def __init__(self, hq, ctx, dev):
        self.q = lz.make_queue(hq, ctx, device=dev)

    def native(self):
        return lz.get_native(self.q)


def start_watchdog(hq, ctx, dev, poll):
    engine = Engine(hq, ctx, dev)
    h = engine.native()
    with ThreadPoolExecutor(max_workers=1) as pool:
        fut = pool.submit(poll, h)  # E: OWN403
        fut.result()
    return engine
