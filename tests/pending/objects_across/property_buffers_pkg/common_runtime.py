"""RAII wrappers of TensorRT samples/python/common_runtime.py, reduced (see infer.py): DeviceMem
frees its pointer in free(), guarded by `is not None` and cleared after the free; HostDeviceMem
holds a DeviceMem in an attribute and shows its pointer through the property `device_ptr`;
free_buffers() frees the DeviceMem of every buffer it is given."""
from cuda.bindings import runtime as cudart


class DeviceMem:
    def __init__(self, size):
        err, self._device_ptr = cudart.cudaMalloc(size)
        self._nbytes = size

    @property
    def device_ptr(self):
        return self._device_ptr

    def free(self):
        if self._device_ptr is not None:
            cudart.cudaFree(self._device_ptr)
            self._device_ptr = None


class HostDeviceMem:
    def __init__(self, size):
        self._size = size
        self._device_mem = DeviceMem(size)

    @property
    def device_ptr(self):
        return self._device_mem.device_ptr


def free_buffers(inputs, outputs):
    for inp in inputs:
        inp._device_mem.free()
    for out in outputs:
        out._device_mem.free()
