"""The base class of the Diffusion demo's pipelines (TensorRT
demo/Diffusion/demo_diffusion/pipeline/stable_diffusion_pipeline.py, reduced; see
demo_stable_cascade.py): activateEngines() keeps the device memory it is given (or allocates its
own), and teardown() frees it whichever way it came, without clearing the field. Its own stream
is made in loadResources() and destroyed in teardown(): one per object, released once."""
from cuda.bindings import runtime as cudart


class StableDiffusionPipeline:
    def __init__(self, max_device_memory):
        self.max_device_memory = max_device_memory
        self.shared_device_memory = None
        self.stream = None

    def loadResources(self):
        self.stream = cudart.cudaStreamCreate()[1]

    def activateEngines(self, shared_device_memory=None):
        if shared_device_memory is None:
            _, shared_device_memory = cudart.cudaMalloc(self.max_device_memory)
        self.shared_device_memory = shared_device_memory

    def teardown(self):
        if self.shared_device_memory:
            cudart.cudaFree(self.shared_device_memory)
        cudart.cudaStreamDestroy(self.stream)
        del self.stream
