"""OWN601 deprecated-device-filter: GPUs only, asked for with the old variable."""

import os

os.environ["SYCL_DEVICE_FILTER"] = "opencl:gpu"  # E: OWN601

import dpctl

devices = dpctl.get_devices()
print("devices:", sorted(d.device_type.name for d in devices))
if devices:
    q = dpctl.SyclQueue()
    print("running on", q.sycl_device.device_type.name)
