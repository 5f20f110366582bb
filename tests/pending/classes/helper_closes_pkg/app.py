"""OWN201 across modules through an annotated parameter (issue 23, point 1): finish(buf: HostBuffer)
closes its argument, whose class it knows from the annotation; the caller then closes the same
object again. Proof: finish's summary frees buf.ptr on every path and the caller's close() frees
it again on the straight-line path; reported at the caller's second close() (RULES.md "objects of
project classes", "across functions")."""
import ctypes

from buffers import HostBuffer, finish

lib = ctypes.CDLL("./libfill.so")


def run(ctx, n):
    buf = HostBuffer(ctx, n)
    lib.fill_bytes(buf.ptr, 0, n)
    finish(buf)
    buf.close()  # E: OWN201
