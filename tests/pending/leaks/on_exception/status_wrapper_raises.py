"""OWN206 (preview; this directory is meant to be checked with OWN206
selected: tests/pending/ISSUE31.md): the program is destroyed on the normal
path, but `nvrtc_check` raises `CompileError` when the source does not
compile, and then the program leaks: one leaked program per failed compile
in a long-running process. Reported at the first call that may raise
between the creation and the release. The check of the creating call's own
status is not that call: when it raises, nothing was created.

Source: tinygrad/tinygrad, tinygrad/runtime/support/compiler_cuda.py,
`CUDACompiler.compile` and `nvrtc_check` (reduced: `_get_bytes` inlined as
two calls; the walrus inside `byref` bound first).
"""
import ctypes

from tinygrad.runtime.autogen import nvrtc


class CompileError(Exception):
    pass


def nvrtc_check(status, ctx=None):
    if status != 0:
        raise CompileError(f"Nvrtc Error {status}")


class CUDACompiler:
    def compile(self, src):
        prog = nvrtc.nvrtcProgram()
        nvrtc_check(nvrtc.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), "<null>".encode(), 0, None, None))
        nvrtc_check(nvrtc.nvrtcCompileProgram(prog, len(self.compile_options), self.c_options), prog)  # E: OWN206
        size = ctypes.c_size_t()
        nvrtc_check(nvrtc.nvrtcGetPTXSize(prog, ctypes.byref(size)))
        data = ctypes.create_string_buffer(size.value)
        nvrtc_check(nvrtc.nvrtcGetPTX(prog, data))
        nvrtc_check(nvrtc.nvrtcDestroyProgram(ctypes.byref(prog)))
        return data.raw
