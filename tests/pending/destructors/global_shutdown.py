"""OWN201: a module global's destructor runs at program end, after a function freed its pointer
(TensorRT samples/python/common_runtime.py's DeviceMem without free()'s None guard, held in a
module global as Polygraphy's polygraphy/cuda/cuda.py holds `G_CUDA`). shutdown() frees the
global's pointer; the script calls it last; at interpreter exit the global dies and its __del__
frees the pointer again. The same with the free written at module level is found today
(tests/fixtures/destructors/global_at_exit.py); through a function it is not.

Proof: `WORKSPACE` is bound once at module level and never rebound, deleted or passed on;
shutdown()'s summary frees `WORKSPACE.device_ptr` on every path; globals die at program end,
running __del__. RULES.md "Death runs the destructor" ("the end of the program for module
globals"); reported at the module's `shutdown()` call (the explicit release, through the callee,
with the free inside shutdown() and the destructor as related locations)."""
from cuda.bindings import runtime as cudart

N = 1 << 20


class DeviceMem:
    def __init__(self, size):
        err, self.device_ptr = cudart.cudaMalloc(size)

    def __del__(self):
        cudart.cudaFree(self.device_ptr)


WORKSPACE = DeviceMem(N)


def shutdown():
    (err,) = cudart.cudaFree(WORKSPACE.device_ptr)


(err,) = cudart.cudaMemset(WORKSPACE.device_ptr, 0, N)
shutdown()  # E: OWN201
