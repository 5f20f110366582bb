"""Issue 22 point 5 (across modules, clean look-alike): through the imported helper, [0, 2*P) and [2*P, 6*P) are adjacent: no finding."""
import ctypes
import mmap

from mapping import map_window
from ze import *

PAGE = mmap.PAGESIZE


def publish(hctx):
    ring = mmap.mmap(-1, 8 * PAGE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(ring))
    header = map_window(hctx, base, 0, 2 * PAGE)
    payload = map_window(hctx, base, 2 * PAGE, 4 * PAGE)
    zeMemFree(hctx, payload)
    zeMemFree(hctx, header)
    ring.close()
