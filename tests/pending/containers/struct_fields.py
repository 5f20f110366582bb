"""OWN201 / OWN203 on handles in fields: the `ptr` field of the cudaPitchedPtr that cudaMalloc3D
returns (cuda-python's cuda.bindings.runtime; issue 32's `cudaFree(pitched.ptr)` seed), and
`int(buf.handle)` of a cuda.core Buffer parameter (cuda-python's cuda_core/examples/saxpy.py and
memory_ops.py hand `int(buf.handle)` to other libraries; here to the driver's free).

Proof: the struct a creator returns holds the allocation in `ptr` (needs a model entry naming
cudaMalloc3D's result and its field: ISSUE32.md); `int(buf.handle)` of an unchanged parameter
names the same handle each time (RULES.md "Handles in containers and fields": "attributes of
structs a creator returns, `int(h)` / `h.handle` / `h.ptr` of an owner, followed as the same
handle"). A double free wholly inside `release_twice` is reported there (it does not depend on
the caller). The clean look-alike is tests/fixtures/containers/struct_fields_once.py."""
from cuda.bindings import driver, runtime as cudart


def pitched_twice(width, height, depth):
    extent = cudart.make_cudaExtent(width, height, depth)
    err, pitched = cudart.cudaMalloc3D(extent)
    (err,) = cudart.cudaMemset3D(pitched, 0, extent)
    (err,) = cudart.cudaFree(pitched.ptr)
    (err,) = cudart.cudaFree(pitched.ptr)  # E: OWN201


def pitched_used_after_free(width, height, depth):
    extent = cudart.make_cudaExtent(width, height, depth)
    err, pitched = cudart.cudaMalloc3D(extent)
    (err,) = cudart.cudaFree(pitched.ptr)
    (err,) = cudart.cudaMemset3D(pitched, 0, extent)  # E: OWN203


def release_twice(buf):
    (err,) = driver.cuMemFree(int(buf.handle))
    (err,) = driver.cuMemFree(int(buf.handle))  # E: OWN201
