"""Polygraphy's TensorRT runner (TensorRT tools/Polygraphy/polygraphy/backend/trt/runner.py,
reduced; see app.py): activate_impl() makes a Stream held in `self.stream`, deactivate_impl()
frees it."""
from base_runner import BaseRunner
from polygraphy_cuda import Stream


class TrtRunner(BaseRunner):
    def __init__(self, name="trt-runner"):
        super().__init__(name)
        self.stream = None

    def activate_impl(self):
        self.stream = Stream()

    def infer(self):
        self.stream.synchronize()

    def deactivate_impl(self):
        self.stream.free()
