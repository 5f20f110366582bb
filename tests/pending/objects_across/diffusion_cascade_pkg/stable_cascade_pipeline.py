"""The Stable Cascade pipeline (TensorRT
demo/Diffusion/demo_diffusion/pipeline/stable_cascade_pipeline.py, reduced; see
demo_stable_cascade.py): a subclass that runs its base's __init__ through super() and inherits
activateEngines() and teardown()."""
from stable_diffusion_pipeline import StableDiffusionPipeline


class StableCascadePipeline(StableDiffusionPipeline):
    def __init__(self, max_device_memory, lite=False):
        super().__init__(max_device_memory)
        self.lite = lite
