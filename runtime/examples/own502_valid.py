"""OWN502 fixed: the array lives on the device's default context."""

import dpctl
import dpnp.tensor as dpt
import numpy as np

dev = dpctl.SyclDevice()
q = dpctl.SyclQueue(dev)  # the device's default platform context
x = dpt.asarray(np.arange(4), sycl_queue=q)
y = dpt.from_dlpack(x)
assert dpt.asnumpy(y).tolist() == [0, 1, 2, 3]
print("exported", y)
