"""OWN201 on a handle in a field: `int(buf.handle)` of a cuda.core Buffer parameter (cuda-python's cuda_core/examples/saxpy.py and
memory_ops.py hand `int(buf.handle)` to other libraries; here to the driver's free).

(The `ptr` field of cudaMalloc3D's cudaPitchedPtr, once here, is modelled now: cudaMalloc3D
creates it and `ptr` is a derived attribute; tests/fixtures/cuda/runtime_interop_sharing.py.)

Proof: `int(buf.handle)` of an unchanged parameter
names the same handle each time (RULES.md "Handles in containers and fields": "attributes of
structs a creator returns, `int(h)` / `h.handle` / `h.ptr` of an owner, followed as the same
handle"). A double free wholly inside `release_twice` is reported there (it does not depend on
the caller). The clean look-alike is tests/fixtures/containers/struct_fields_once.py."""
from cuda.bindings import driver


def release_twice(buf):
    (err,) = driver.cuMemFree(int(buf.handle))
    (err,) = driver.cuMemFree(int(buf.handle))  # E: OWN201
