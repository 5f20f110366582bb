"""OWN502 dlpack-non-default-context: an array on an explicitly created context, exported."""

import dpctl
import dpnp.tensor as dpt
import numpy as np

dev = dpctl.SyclDevice()
ctx = dpctl.SyclContext([dev])  # a new context, not the platform's default one
q = dpctl.SyclQueue(ctx, dev)
x = dpt.asarray(np.arange(4), sycl_queue=q)
y = dpt.from_dlpack(x)  # E: OWN502
print("exported", y)
