"""A base runner that owns a workspace and frees it in teardown() (the shape of TensorRT
demo/Diffusion's pipelines and Polygraphy's runners, reduced; see runner_trt.py)."""
from cuda.bindings import runtime as cudart


class BaseRunner:
    def __init__(self, size):
        err, self.workspace = cudart.cudaMalloc(size)

    def teardown(self):
        cudart.cudaFree(self.workspace)
