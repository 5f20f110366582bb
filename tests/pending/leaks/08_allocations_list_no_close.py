"""OWN205 (fields never released): one `cudaMalloc` per I/O binding, each
appended to `self.allocations` (and kept in the binding dicts), and the
class has no `__del__`, `close` or `__exit__`: no path releases the field's
elements. Reported at the store into the field (the `append`; see
tests/pending/ISSUE31.md, "a container field").

Source: NVIDIA/TensorRT, samples/python/dds_faster_rcnn/infer.py,
`TensorRTInfer.__init__` (reduced: the engine is a parameter, output
allocators removed). samples/python/detectron2/infer.py has the same shape.
"""
import numpy as np
import tensorrt as trt

from cuda.bindings import runtime as cudart


def cuda_call(call):
    err, res = call[0], call[1:]
    if err.value:
        raise RuntimeError(f"CUDA error code={err.value}")
    if len(res) == 1:
        return res[0]
    elif len(res) == 0:
        return None
    else:
        return res


class TensorRTInfer:
    def __init__(self, engine):
        self.engine = engine
        self.context = self.engine.create_execution_context()
        self.inputs = []
        self.outputs = []
        self.allocations = []
        for i in range(self.engine.num_io_tensors):
            name = self.engine.get_tensor_name(i)
            is_input = self.engine.get_tensor_mode(name) == trt.TensorIOMode.INPUT
            dtype = np.dtype(trt.nptype(self.engine.get_tensor_dtype(name)))
            shape = self.engine.get_tensor_shape(name)
            nbytes = np.prod(shape) * dtype.itemsize
            allocation = cuda_call(cudart.cudaMalloc(nbytes))
            binding = {"index": i, "name": name, "dtype": dtype, "allocation": allocation}
            self.allocations.append(allocation)  # E: OWN205
            if is_input:
                self.inputs.append(binding)
            else:
                self.outputs.append(binding)

    def infer(self):
        self.context.execute_v2(self.allocations)
