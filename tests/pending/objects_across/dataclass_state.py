"""OWN201 through a dataclass (the AllocatorState of TensorRT
samples/python/dds_faster_rcnn/infer.py, written as the @dataclass it is in spirit: a pointer
and a size, with a method that releases the pointer). A dataclass has no __init__ in its body:
its fields are the generated __init__'s parameters, in order, so `AllocatorState(ptr, size)`
stores the handle in `state.ptr`; release() frees it without clearing it, so calling it twice
frees twice. The clean look-alike is
tests/fixtures/objects_across/dataclass_state_guarded.py.

Proof: the generated __init__ stores each argument in its field; release() frees `self.ptr` on
every path. RULES.md "Ownership across the program" (dataclasses), "Release methods are
protocols"; reported at the second release() call."""
from dataclasses import dataclass

from cuda.bindings import runtime as cudart


@dataclass
class AllocatorState:
    ptr: int
    size: int

    def release(self):
        cudart.cudaFree(self.ptr)



def reallocate_twice(size):
    err, ptr = cudart.cudaMalloc(size)
    state = AllocatorState(ptr, size)
    state.release()
    state.release()  # E: OWN201
