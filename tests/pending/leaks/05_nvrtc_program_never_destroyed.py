"""OWN205: an NVRTC program compiled, its CUBIN read out, and the program
never destroyed (`nvrtcDestroyProgram` appears nowhere in the helper). It
is lost at the `return`.

Source: NVIDIA/TensorRT, samples/python/plugin_utils.py, `KernelHelper.__init__`
(taken, its comment says, from cuda-python's examples/common/common.py; the
same in leofang/cuda-python, cuda_bindings/cuda/bindings/_example_helpers/
common.py). Reduced to the compile step, returned instead of loaded.
"""
from cuda.bindings import nvrtc


def cuda_call(call):
    err, res = call[0], call[1:]
    if err.value:
        raise RuntimeError(f"CUDA error code={err.value}")
    if len(res) == 1:
        return res[0]
    elif len(res) == 0:
        return None
    else:
        return res


def compile_cubin(code, arch_arg):
    prog = cuda_call(nvrtc.nvrtcCreateProgram(str.encode(code), b"sourceCode.cu", 0, [], []))
    opts = [b"--fmad=true", arch_arg, b"--std=c++11", b"-default-device"]
    cuda_call(nvrtc.nvrtcCompileProgram(prog, len(opts), opts))
    data_size = cuda_call(nvrtc.nvrtcGetCUBINSize(prog))
    data = b" " * data_size
    cuda_call(nvrtc.nvrtcGetCUBIN(prog, data))
    return data  # E: OWN205
