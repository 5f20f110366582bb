"""Polygraphy's CUDA stream wrapper (TensorRT tools/Polygraphy/polygraphy/cuda/cuda.py, class
Stream, reduced; see app.py): free() destroys `self.ptr` and clears a field nothing reads
(`self.handle`), so a second free() destroys the stream again."""
import ctypes

from cuda.bindings import runtime as cudart


class Stream:
    def __init__(self):
        err, self.ptr = cudart.cudaStreamCreate()

    def free(self):
        cudart.cudaStreamDestroy(self.ptr)
        self.handle = ctypes.c_void_p(None)

    def synchronize(self):
        cudart.cudaStreamSynchronize(self.ptr)
