"""OWN201 through a property of an object held in an attribute, across modules (the buffers of
TensorRT samples/python/common_runtime.py, used as the samples use them): the caller frees
`out.device_ptr` itself (the property returns `out._device_mem._device_ptr`), then hands the
buffers to free_buffers(), whose DeviceMem.free() sees its field still set (the None guard does
not know the caller freed it) and frees the same pointer again.

Proof: HostDeviceMem() keeps a DeviceMem in `_device_mem`; the property returns that object's
field; free_buffers() iterates a list literal of the caller's objects, and DeviceMem.free() frees
the field on the path where it is not None, which it is. RULES.md "Ownership across the program"
(objects in attributes and container elements, properties); reported at the free_buffers() call,
the caller's call site of the second free, with the free inside DeviceMem.free as related
location."""
from cuda.bindings import runtime as cudart

from common_runtime import HostDeviceMem, free_buffers


def infer(size, host):
    inp = HostDeviceMem(size)
    out = HostDeviceMem(size)
    kind = cudart.cudaMemcpyKind.cudaMemcpyHostToDevice
    cudart.cudaMemcpy(inp.device_ptr, host, size, kind)
    cudart.cudaFree(out.device_ptr)
    free_buffers([inp], [out])  # E: OWN201
