"""OWN201 across two modules: TensorRT demo/Diffusion/demo_txt2img_xl.py with --enable-refiner,
reduced (the base class is demo_diffusion/pipeline/stable_diffusion_pipeline.py). The demo class
holds a `base` and, when the refiner is enabled, a `refiner` pipeline, both of the base class;
activateEngines(p) gives both the one block the module allocated, and teardown() calls both
teardown()s, each of which frees it: freed twice when the refiner is enabled.

Proof: `self.enable_refiner` is set once in __init__ and tested, unchanged, in activateEngines()
and teardown(), so the path where the refiner got the block and frees it is feasible (the tests
are correlated: no path gives the refiner the block without its teardown, or the reverse).
RULES.md "Ownership across the program" (objects in attributes, inherited methods, two owners
releasing one handle), reported at the module's `demo.teardown()` as in
diffusion_cascade_pkg."""
from cuda.bindings import runtime as cudart

import stable_diffusion_pipeline as pipeline_module


class StableDiffusionXLPipeline(pipeline_module.StableDiffusionPipeline):
    def __init__(self, max_device_memory, enable_refiner=False):
        self.enable_refiner = enable_refiner
        self.base = pipeline_module.StableDiffusionPipeline(max_device_memory)
        if self.enable_refiner:
            self.refiner = pipeline_module.StableDiffusionPipeline(max_device_memory)

    def activateEngines(self, shared_device_memory=None):
        self.base.activateEngines(shared_device_memory)
        if self.enable_refiner:
            self.refiner.activateEngines(shared_device_memory)

    def loadResources(self):
        self.base.loadResources()
        if self.enable_refiner:
            self.refiner.loadResources()

    def get_max_device_memory(self):
        max_device_memory = self.base.max_device_memory
        if self.enable_refiner:
            max_device_memory = max(max_device_memory, self.refiner.max_device_memory)
        return max_device_memory

    def teardown(self):
        self.base.teardown()
        if self.enable_refiner:
            self.refiner.teardown()


if __name__ == "__main__":
    demo = StableDiffusionXLPipeline(1 << 30, enable_refiner=True)
    _, shared_device_memory = cudart.cudaMalloc(demo.get_max_device_memory())
    demo.activateEngines(shared_device_memory)
    demo.loadResources()
    demo.teardown()  # E: OWN201
