"""OWN203: a child used after its parent was destroyed (issue 32, "Children outliving parents";
the context / module / function / memory hierarchy of cuda-python's
cuda_bindings/examples/0_Introduction/vector_add_drv.py and examples/extra/jit_program.py, which
create a context, load a module into it, get a function and allocate memory, and destroy them
in the reverse order). Destroying the context first unloads its modules and frees its memory;
unloading a module invalidates its functions.

Proof: each child was made while the context was current (cuCtxCreate makes it current) or from
the module, and the parent's destroy is on the straight-line path before the use. RULES.md
"Children die with their parent" (the models say which argument is the parent: the current
context for memory, streams, events, modules; the module for functions); reported at the use,
with the parent's destroy in the story. The clean look-alike is
tests/fixtures/parents/children_first.py."""
from cuda.bindings import driver


def module_after_context(image):
    (err,) = driver.cuInit(0)
    err, dev = driver.cuDeviceGet(0)
    err, ctx = driver.cuCtxCreate(None, 0, dev)
    err, module = driver.cuModuleLoadData(image)
    (err,) = driver.cuCtxDestroy(ctx)
    err, kernel = driver.cuModuleGetFunction(module, b"vecAdd")  # E: OWN203


def memory_after_context(n):
    (err,) = driver.cuInit(0)
    err, dev = driver.cuDeviceGet(0)
    err, ctx = driver.cuCtxCreate(None, 0, dev)
    err, dptr = driver.cuMemAlloc(n)
    (err,) = driver.cuCtxDestroy(ctx)
    (err,) = driver.cuMemsetD8(dptr, 0, n)  # E: OWN203


def function_after_module(image, args):
    err, module = driver.cuModuleLoadData(image)
    err, kernel = driver.cuModuleGetFunction(module, b"vecAdd")
    (err,) = driver.cuModuleUnload(module)
    (err,) = driver.cuLaunchKernel(kernel, 1, 1, 1, 32, 1, 1, 0, 0, args, 0)  # E: OWN203
