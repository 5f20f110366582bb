"""OWN205 (a field its class never releases): the module is stored in
`self.module` and nothing in the class unloads it: there is no `__del__`,
`close` or `__exit__`, and no other method calls `cuModuleUnload`. Reported
at the assignment into the field.

Source: leofang/cuda-python, cuda_bindings/cuda/bindings/_example_helpers/
common.py, `KernelHelper` (also NVIDIA/TensorRT, samples/python/
plugin_utils.py); the NVRTC compile step is a parameter here (see
05_nvrtc_program_never_destroyed.py for it).
"""
import numpy as np

from cuda.bindings import driver as cuda


def check_cuda_errors(result):
    if result[0].value:
        raise RuntimeError(f"CUDA error code={result[0].value}")
    if len(result) == 1:
        return None
    elif len(result) == 2:
        return result[1]
    else:
        return result[1:]


class KernelHelper:
    def __init__(self, data):
        self.module = check_cuda_errors(cuda.cuModuleLoadData(np.char.array(data)))  # E: OWN205

    def get_function(self, name):
        return check_cuda_errors(cuda.cuModuleGetFunction(self.module, name))
