"""OWN203 through an object held in a module global (the shape of Polygraphy's
tools/Polygraphy/polygraphy/cuda/cuda.py, whose module global `G_CUDA` holds the one `Cuda()`
wrapper every function reaches through `wrapper()`; here the global holds a device workspace).
shutdown() frees the global's pointer through its method; run_then_reuse() then uses the pointer
read off the same global.

Proof: `_workspace` is bound once at module level to `Workspace(...)`, so its class is known in
every function of the module; shutdown()'s summary frees `_workspace.ptr` on every path. RULES.md
"Ownership across the program" (objects in module globals keep their class; their methods'
effects apply to that object's attributes); reported at the use."""
from cuda.bindings import runtime as cudart

N = 1 << 20


class Workspace:
    def __init__(self, n):
        err, self.ptr = cudart.cudaMalloc(n)

    def free(self):
        cudart.cudaFree(self.ptr)


_workspace = Workspace(N)


def shutdown():
    _workspace.free()


def run_then_reuse():
    (err,) = cudart.cudaMemset(_workspace.ptr, 0, N)
    shutdown()
    (err,) = cudart.cudaMemset(_workspace.ptr, 1, N)  # E: OWN203
