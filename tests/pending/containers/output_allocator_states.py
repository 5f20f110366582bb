"""OWN201 on handles in a dict of objects (TensorRT samples/python/dds_faster_rcnn/infer.py,
MyOutputAllocator: `self.states[tensor_name]` is an AllocatorState whose `ptr` is a cudaMalloc
block; reallocate_output_async() frees `self.states[tensor_name].ptr` and stores the new pointer
with update(); __del__ frees every state's `ptr`): a release() method (added to the
sample's class) that frees a state's pointer without removing or clearing the state, so the
allocator's __del__ frees it again when the allocator dies. (The other shape once here,
reallocate() with the old pointer's free written twice, is found since session 6:
tests/fixtures/containers/output_allocator_reallocate.py.)

Proof: `self.states[name]` names the same element for the same unchanged key (a parameter);
AllocatorState() stores its argument in `ptr` and update() rebinds it only when given one; the
allocator `alloc` is a local that dies at the end of `run`, and its __del__ frees each state's
`ptr` that is not None. RULES.md "Handles in containers and fields" (dict elements, parameter
keys, attributes of objects held in elements), "Death runs the destructor"; reported at the
explicit release (with the destructor as related location) and at the second free. The clean
look-alike is tests/fixtures/containers/output_allocator_popped.py."""
from cuda.bindings import runtime as cudart


class AllocatorState:
    def __init__(self, ptr, size):
        self.ptr = ptr
        self.size = size

    def update(self, ptr=None, size=None):
        if ptr is not None:
            self.ptr = ptr
        if size is not None:
            self.size = size


class MyOutputAllocator:
    def __init__(self):
        self.states = {}

    def reallocate(self, tensor_name, size):
        err, ptr = cudart.cudaMalloc(size)
        if tensor_name in self.states:
            cudart.cudaFree(self.states[tensor_name].ptr)
            self.states[tensor_name].update(ptr=ptr, size=size)
        else:
            self.states[tensor_name] = AllocatorState(ptr, size)
        return ptr

    def release(self, tensor_name):
        cudart.cudaFree(self.states[tensor_name].ptr)

    def __del__(self):
        for tensor_name, item in self.states.items():
            if item.ptr is not None:
                cudart.cudaFree(item.ptr)
        self.states.clear()


def run(size):
    alloc = MyOutputAllocator()
    alloc.reallocate("boxes", size)
    alloc.release("boxes")  # E: OWN201
