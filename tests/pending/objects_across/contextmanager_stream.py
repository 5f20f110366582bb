"""OWN203 / OWN201 through a @contextmanager generator (the shape of cuda-python's
cuda_bindings/tests/test_nvjitlink.py `nvjitlink_session`: create a handle, `yield` it, destroy
it in `finally`), here with a CUDA stream. `with cuda_stream() as s:` binds `s` to the yielded
stream; the code after the `yield` runs when the block ends, so the stream is destroyed there: a
use after the block is a use after free, an explicit destroy after it a double destroy. The clean look-alike is
tests/fixtures/objects_across/contextmanager_stream_inside.py.

Proof: the generator's `finally` destroys the stream on every path out of the block. RULES.md
"Ownership across the program" (@contextmanager generators, like `__exit__`); reported at the
use, and at the explicit destroy."""
import contextlib

from cuda.bindings import driver as cuda


@contextlib.contextmanager
def cuda_stream():
    err, stream = cuda.cuStreamCreate(0)
    try:
        yield stream
    finally:
        cuda.cuStreamDestroy(stream)


def copy_then_sync(dst, src, n):
    with cuda_stream() as s:
        (err,) = cuda.cuMemcpyDtoDAsync(dst, src, n, s)
    (err,) = cuda.cuStreamSynchronize(s)  # E: OWN203


def destroy_after_block(dst, src, n):
    with cuda_stream() as s:
        (err,) = cuda.cuMemcpyDtoDAsync(dst, src, n, s)
        (err,) = cuda.cuStreamSynchronize(s)
    (err,) = cuda.cuStreamDestroy(s)  # E: OWN201

