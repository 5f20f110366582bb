"""OWN203: kernels used after the object that owns their context died (cuda-python
cuda_bindings/examples/extra/iso_fd_modelling.py, reduced: Propagator creates a context in
__init__ and destroys it in __del__; CudaKernels loads its module into that context, from
`CudaKernels(p.context)`). Dropping the Propagator (`del p`, its only reference) runs its
__del__, which destroys the context, and with it the module the kernels came from; launching a
kernel afterwards uses a function of an unloaded module.

Proof: `p` is the only reference to the Propagator (only `p.context`, a handle, was passed on),
so `del p` runs __del__, which destroys `self.context` on every path; the module was loaded
while that context was current (cuCtxCreate made it current), and the function came from the
module. RULES.md "Death runs the destructor", "Children die with their parent"; reported at the
caller's `kernels.launch(...)` call (the use is inside launch(), and whether it is a bug depends
on what the caller did), with the context's destroy in the story."""
from cuda.bindings import driver


class Propagator:
    def __init__(self, ordinal):
        (err,) = driver.cuInit(0)
        err, self.cu_device = driver.cuDeviceGet(ordinal)
        err, self.context = driver.cuCtxCreate(None, 0, self.cu_device)
        err, self.stream = driver.cuStreamCreate(0)

    def __del__(self):
        (err,) = driver.cuCtxSetCurrent(self.context)
        (err,) = driver.cuStreamDestroy(self.stream)
        (err,) = driver.cuCtxDestroy(self.context)


class CudaKernels:
    def __init__(self, context, image):
        (err,) = driver.cuCtxSetCurrent(context)
        err, self.module = driver.cuModuleLoadData(image)
        err, self.inject_source = driver.cuModuleGetFunction(self.module, b"injectSource")

    def launch(self, args):
        (err,) = driver.cuLaunchKernel(self.inject_source, 1, 1, 1, 32, 1, 1, 0, 0, args, 0)

    def close(self):
        (err,) = driver.cuModuleUnload(self.module)


def main(image, args):
    p = Propagator(0)
    kernels = CudaKernels(p.context, image)
    del p
    kernels.launch(args)  # E: OWN203
