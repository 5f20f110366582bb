"""Issue 22 point 5 (across modules): PAGE is imported from the helper's module (a module-level constant of the project), and through the helper [P, 5*P) overlaps the live [0, 2*P): OWN301 at the second call."""
import ctypes
import mmap

from mapping import PAGE, map_window
from ze import *


def publish(hctx):
    ring = mmap.mmap(-1, 8 * PAGE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(ring))
    header = map_window(hctx, base, 0, 2 * PAGE)
    payload = map_window(hctx, base, PAGE, 4 * PAGE)  # E: OWN301
    zeMemFree(hctx, payload)
    zeMemFree(hctx, header)
    ring.close()
