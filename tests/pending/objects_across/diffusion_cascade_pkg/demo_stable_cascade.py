"""OWN201 across three modules: TensorRT demo/Diffusion/demo_stable_cascade.py, reduced (the
pipelines live in demo_diffusion/pipeline/stable_cascade_pipeline.py and
stable_diffusion_pipeline.py). The demo allocates one block with cudaMalloc and gives it to two
pipeline objects held in its attributes `prior` and `decoder`; its teardown() calls each one's
teardown(), inherited from StableDiffusionPipeline, which does
`cudart.cudaFree(self.shared_device_memory)` without clearing the field: the block is freed twice.

Proof: the objects in `self.prior` / `self.decoder` keep their class (StableCascadePipeline, built
in __init__), activateEngines(p) stores the caller's handle in each one's field, and teardown()
frees that field on every path where it is truthy (it is: a live allocation). RULES.md "Ownership
across the program": objects held in attributes keep their class, methods resolve through the
MRO, "two owners holding one handle that each release at teardown release it twice", reported at
the second release in the code that made the sharing (here the module's `demo.teardown()`, whose
callee frees twice), with where each owner got it (`self.shared_device_memory = ...` reached from
`self.prior.activateEngines` and `self.decoder.activateEngines`)."""
from cuda.bindings import runtime as cudart

import stable_cascade_pipeline as pipeline_module


class StableCascadeDemoPipeline(pipeline_module.StableCascadePipeline):
    def __init__(self, max_device_memory, lite):
        self.prior = pipeline_module.StableCascadePipeline(max_device_memory, lite=lite)
        self.decoder = pipeline_module.StableCascadePipeline(max_device_memory, lite=lite)

    def activateEngines(self, shared_device_memory=None):
        self.prior.activateEngines(shared_device_memory)
        self.decoder.activateEngines(shared_device_memory)

    def loadResources(self):
        self.prior.loadResources()
        self.decoder.loadResources()

    def get_max_device_memory(self):
        return max(self.prior.max_device_memory, self.decoder.max_device_memory)

    def teardown(self):
        self.prior.teardown()
        self.decoder.teardown()


if __name__ == "__main__":
    demo = StableCascadeDemoPipeline(1 << 30, lite=False)
    _, shared_device_memory = cudart.cudaMalloc(demo.get_max_device_memory())
    demo.activateEngines(shared_device_memory)
    demo.loadResources()
    demo.teardown()  # E: OWN201
