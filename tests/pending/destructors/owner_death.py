"""OWN203: an owner object dies (a temporary, a rebound name, `del`, removal from a dict) and its
__del__ frees the memory whose pointer the caller kept (the RAII DeviceMem of TensorRT
samples/python/common_runtime.py: `__del__` calls free(), which frees `_device_ptr`; its
docstring warns "not guaranteed to be called", but CPython calls it when the last reference
goes). The pointer read off the dead owner is then used.

Proof: each owner's only reference is dropped at the marked statement (the temporary is bound to
no name; `mem` and the dict element are never passed anywhere), so its __del__ runs there and
frees the field on the path where it is not None. RULES.md "Death runs the destructor" (`del`,
rebinding a name, container removal, temporaries); reported at the use. The clean look-alike is
tests/fixtures/destructors/owner_kept_alive.py."""
from cuda.bindings import runtime as cudart


class DeviceMem:
    def __init__(self, size):
        err, self._device_ptr = cudart.cudaMalloc(size)

    @property
    def device_ptr(self):
        return self._device_ptr

    def free(self):
        if self._device_ptr is not None:
            cudart.cudaFree(self._device_ptr)
            self._device_ptr = None

    def __del__(self):
        self.free()


def temporary(size):
    ptr = DeviceMem(size).device_ptr
    (err,) = cudart.cudaMemset(ptr, 0, size)  # E: OWN203


def rebound(size):
    mem = DeviceMem(size)
    ptr = mem.device_ptr
    mem = DeviceMem(2 * size)
    (err,) = cudart.cudaMemset(ptr, 0, size)  # E: OWN203


def deleted(size):
    mem = DeviceMem(size)
    ptr = mem.device_ptr
    del mem
    (err,) = cudart.cudaMemset(ptr, 0, size)  # E: OWN203


def popped(size):
    buffers = {"scores": DeviceMem(size)}
    ptr = buffers["scores"].device_ptr
    buffers.pop("scores")
    (err,) = cudart.cudaMemset(ptr, 0, size)  # E: OWN203
