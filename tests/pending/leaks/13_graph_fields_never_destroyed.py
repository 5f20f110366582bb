"""OWN205 (fields never released): `infer` captures a CUDA graph into
`self.graph` and instantiates it into `self.cuda_graph_instance`; the
class's `__del__` only `del`s other attributes and no method destroys
either graph. Reported at the two assignments.

Source: NVIDIA/TensorRT, demo/Diffusion/demo_diffusion/engine.py, `Engine`
(`__init__`, `__del__`, `infer`; `_CUASSERT` from the same file). Reduced:
the TensorRT calls are kept as calls on `self.context`.
"""
from cuda.bindings import runtime as cudart


def _CUASSERT(cuda_ret):
    err = cuda_ret[0]
    if err != cudart.cudaError_t.cudaSuccess:
        raise RuntimeError(f"CUDA ERROR: {err}")
    if len(cuda_ret) > 1:
        return cuda_ret[1]
    return None


class Engine:
    def __init__(self, engine_path):
        self.engine_path = engine_path
        self.engine = None
        self.context = None
        self.tensors = {}
        self.cuda_graph_instance = None

    def __del__(self):
        del self.engine
        del self.context
        del self.tensors

    def infer(self, stream, use_cuda_graph=False):
        if use_cuda_graph:
            if self.cuda_graph_instance is not None:
                _CUASSERT(cudart.cudaGraphLaunch(self.cuda_graph_instance, stream))
                _CUASSERT(cudart.cudaStreamSynchronize(stream))
            else:
                self.context.execute_async_v3(stream)
                mode = cudart.cudaStreamCaptureMode.cudaStreamCaptureModeGlobal
                _CUASSERT(cudart.cudaStreamBeginCapture(stream, mode))
                self.context.execute_async_v3(stream)
                self.graph = _CUASSERT(cudart.cudaStreamEndCapture(stream))  # E: OWN205
                self.cuda_graph_instance = _CUASSERT(cudart.cudaGraphInstantiate(self.graph, 0))  # E: OWN205
        else:
            self.context.execute_async_v3(stream)
        return self.tensors
