"""Clean look-alike (a false OWN205, pending its fix): a pointer handed off
inside a closure. `memalloc` allocates, and returns a finalizer that frees
the pointer later; the closure's cell holds the pointer, so nothing is lost
when `memalloc` returns. ownlint hands off what a nested function or lambda
captures only for owner objects (a capture of every value broke the leak
fixtures whose undo lambdas are cleared: leaks/11_rollback_list_cleared.py),
so the raw pointer is reported lost at the `return`. Needs the closure's
value to carry what it captures.

Source: NVIDIA/nvmath-python, examples/fft/example10_memory_allocator.py
(`memalloc`'s `create_finalizer`), reduced: there the pointer is also given
to `MemoryPointer`, which hands it off, so the original is quiet.
"""
import cupy as cp


def memalloc(size):
    device_ptr = cp.cuda.runtime.malloc(size)

    def finalizer():
        cp.cuda.runtime.free(device_ptr)

    return finalizer
