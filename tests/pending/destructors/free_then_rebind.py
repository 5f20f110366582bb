"""OWN201: a release method called explicitly, then the destructor (issue 32's "binding class";
the Binding of TensorRT samples/python/dds_faster_rcnn/infer.py's TensorRTInfer, which keeps
each cudaMalloc allocation in a binding, with the free()/__del__ pair of
samples/python/common_runtime.py's DeviceMem without its None guard). Binding.free() frees
`self.allocation` without clearing it and __del__ calls free(); the engine wrapper frees its
binding explicitly, then rebinds the attribute to a new Binding: the old one dies and its
destructor frees the same allocation again.

Proof: rebinding `self.binding` drops the only reference to the old Binding (it was built in
__init__ and never stored elsewhere), so its __del__ runs there and frees the field free() left
set. RULES.md "Death runs the destructor": "`b.free()` followed by rebinding `b` (or
`self.binding = Binding(...)`) is a double free when `__del__` frees again without a guard,
reported at the explicit release with the destructor as related location". The same with a local
(`b.free(); b = Binding(...)`, tests/fixtures/destructors/free_then_rebind_local.py) is found
today; the clean look-alike is tests/fixtures/destructors/free_then_rebind_guarded.py."""
from cuda.bindings import runtime as cudart


class Binding:
    def __init__(self, size):
        self.size = size
        err, self.allocation = cudart.cudaMalloc(size)

    def free(self):
        cudart.cudaFree(self.allocation)

    def __del__(self):
        self.free()


class Engine:
    def __init__(self, size):
        self.binding = Binding(size)

    def resize(self, size):
        self.binding.free()  # E: OWN201
        self.binding = Binding(size)

