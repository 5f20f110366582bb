"""OWN501 fixed: a fresh capsule for each consumer."""

import dpctl

queue = dpctl.SyclQueue()
first = dpctl.SyclQueue(queue._get_capsule())
second = dpctl.SyclQueue(queue._get_capsule())
assert first.sycl_device == second.sycl_device == queue.sycl_device
print("both consumers got", first.sycl_device)
