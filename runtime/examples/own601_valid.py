"""OWN601 fixed: GPUs only, asked for with ONEAPI_DEVICE_SELECTOR."""

import os

os.environ["ONEAPI_DEVICE_SELECTOR"] = "opencl:gpu"

import dpctl

devices = dpctl.get_devices()
print("devices:", sorted(d.device_type.name for d in devices))
if devices:
    q = dpctl.SyclQueue()
    print("running on", q.sycl_device.device_type.name)
