"""OWN205 at a rebinding and at a `del` of the last reference, and for a
field whose only "release" is a `del`. In `interop_stream` the stream made
through the driver API is not destroyed before the name is reused for the
runtime's stream; in `synchronized_copy` the local stream is deleted, not
destroyed; in `Pipeline`, `teardown` deletes the field without
`cudaStreamDestroy`, so no path releases it (reported at the assignment
into the field: `teardown` may run on an object whose field was never set,
so the `del` itself proves nothing there).

Source: variants of real code, each with its release dropped to show the
shape: leofang/cuda-python, cuda_bindings/tests/test_interoperability.py,
`test_interop_stream` (which destroys the first stream before rebinding),
and NVIDIA/TensorRT, demo/Diffusion/demo_diffusion/pipeline/
diffusion_pipeline.py, `DiffusionPipeline.load_resources` / `teardown`
(which destroys `self.stream` before `del self.stream`).
"""
import cuda.bindings.driver as cuda
import cuda.bindings.runtime as cudart


def interop_stream():
    err_dr, stream = cuda.cuStreamCreate(0)
    assert err_dr == cuda.CUresult.CUDA_SUCCESS
    err_rt, stream = cudart.cudaStreamCreate()  # E: OWN205
    assert err_rt == cudart.cudaError_t.cudaSuccess
    (err_dr,) = cuda.cuStreamDestroy(stream)
    assert err_dr == cuda.CUresult.CUDA_SUCCESS


def synchronized_copy(dst, src, nbytes):
    err, stream = cudart.cudaStreamCreate()
    kind = cudart.cudaMemcpyKind.cudaMemcpyDefault
    (err,) = cudart.cudaMemcpyAsync(dst, src, nbytes, kind, stream)
    (err,) = cudart.cudaStreamSynchronize(stream)
    del stream  # E: OWN205
    return err


class Pipeline:
    def load_resources(self):
        self.stream = cudart.cudaStreamCreate()[1]  # E: OWN205

    def teardown(self):
        del self.stream
