"""Clean: a retry after a failed free through ctypes, whose calls return an `int` status (0 is
cudaSuccess) (TensorRT tools/Polygraphy/polygraphy/cuda/cuda.py: `self.handle =
ctypes.CDLL(libcudart)`, `self.check(self.handle.cudaFree(void_ptr(ptr)))` with check() testing
`status != 0`). The second cudaFree runs only when the first returned non-zero, i.e. freed
nothing. A false OWN201 today: rules/cuda_runtime.toml reads cudaFree's status as
cuda.bindings' tuple (its "Known limit"), so `rc != 0` is not tied to the call.

Why clean: on the failure side the release did nothing (rules/README.md "Status results"); issue
32 point 8: "ctypes-style `int` statuses (0 is success) as a model option". The same shape
through rules/cuda_ctypes.toml's versioned names is clean today
(tests/fixtures/correlation/ctypes_int_status.py), and so is its bug look-alike there (a retry
after a *successful* free)."""
import ctypes

libcudart = ctypes.CDLL("libcudart.so")


def free_with_retry(n):
    p = ctypes.c_void_p()
    rc = libcudart.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(n))
    if rc != 0:
        return rc
    rc = libcudart.cudaFree(p)
    if rc != 0:
        rc = libcudart.cudaFree(p)
    if rc != 0:
        raise RuntimeError(f"cudaFree failed twice: {rc}")
    return rc
