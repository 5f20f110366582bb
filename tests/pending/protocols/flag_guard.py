"""A release method guarded by a flag it sets, called twice: no double free (issue 32: "A
release method guarded by a flag it sets (`if not self.freed: free(self.p); self.freed = True`)
called twice is a false double free"; the shape of cuda-python's cuda_core Buffer.close() and
CuPy's memory objects, which test an attribute before releasing). A false OWN201 today.

Why clean: the first call sets `self.freed = True` on the path that freed, in the same method,
so the second call's `if not self.freed` is false on every path that reaches it. RULES.md
"Release methods are protocols" ("Guards by `None` and by boolean flags set in the same method
are followed"), "Correlation"."""
from cuda.bindings import runtime as cudart


class Workspace:
    def __init__(self, size):
        err, self.ptr = cudart.cudaMalloc(size)
        self.freed = False

    def free(self):
        if not self.freed:
            cudart.cudaFree(self.ptr)
            self.freed = True

    def __del__(self):
        self.free()


def close_twice(size):
    ws = Workspace(size)
    (err,) = cudart.cudaMemset(ws.ptr, 0, size)
    ws.free()
    ws.free()
