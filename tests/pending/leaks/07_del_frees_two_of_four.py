"""OWN205 (fields never released): `__del__` destroys both streams and frees
`wave_in` and `wave_out`, but `velocity` and `source`, allocated the same
way in `allocate`, are released nowhere. Reported at each assignment into a
field that no path releases.

Source: leofang/cuda-python, cuda_bindings/examples/extra/iso_fd_modelling.py,
`Propagator` (`__init__`, `__del__`, `allocate`). Reduced: the original also
creates its own context and destroys it in `__del__`, which frees every
allocation of that context; this reduction runs on the current (primary)
context, so nothing frees the two buffers (tests/pending/ISSUE31.md,
"children of a destroyed context").
"""
from cuda.bindings import driver as cuda


def check_cuda_errors(result):
    if result[0].value:
        raise RuntimeError(f"CUDA error code={result[0].value}")
    if len(result) == 1:
        return None
    elif len(result) == 2:
        return result[1]
    else:
        return result[1:]


class Propagator:
    def __init__(self, params):
        self.wave_out = 0
        self.wave_in = 0
        self.stream_center = check_cuda_errors(cuda.cuStreamCreate(0))
        self.stream_halo = check_cuda_errors(cuda.cuStreamCreate(0))
        self.params = params

    def __del__(self):
        check_cuda_errors(cuda.cuStreamDestroy(self.stream_halo))
        check_cuda_errors(cuda.cuStreamDestroy(self.stream_center))
        if self.wave_in != 0:
            check_cuda_errors(cuda.cuMemFree(self.wave_in))
        if self.wave_out != 0:
            check_cuda_errors(cuda.cuMemFree(self.wave_out))

    def allocate(self, buffer_size):
        self.velocity = check_cuda_errors(cuda.cuMemAlloc(buffer_size))  # E: OWN205
        check_cuda_errors(cuda.cuMemsetD32(self.velocity, 0, buffer_size // 4))
        self.wave_in = check_cuda_errors(cuda.cuMemAlloc(buffer_size))
        check_cuda_errors(cuda.cuMemsetD32(self.wave_in, 0, buffer_size // 4))
        self.wave_out = check_cuda_errors(cuda.cuMemAlloc(buffer_size))
        check_cuda_errors(cuda.cuMemsetD32(self.wave_out, 0, buffer_size // 4))
        self.source = check_cuda_errors(cuda.cuMemAlloc(buffer_size))  # E: OWN205
