"""Part of transaction_pkg (see vmm.py): undo actions registered on an
ExitStack and disarmed by `commit()`.

Source: leofang/cuda-python, cuda_core/cuda/core/_utils/cuda_utils.pyx,
`Transaction` (Cython `def` methods written as Python).
"""
from contextlib import ExitStack
from functools import partial


class Transaction:
    def __init__(self):
        self._stack = ExitStack()
        self._entered = False

    def __enter__(self):
        self._stack.__enter__()
        self._entered = True
        return self

    def __exit__(self, exc_type, exc, tb):
        self._entered = False
        return self._stack.__exit__(exc_type, exc, tb)

    def append(self, fn, /, *args, **kwargs):
        if not self._entered:
            raise RuntimeError("Transaction must be entered before append()")
        self._stack.callback(partial(fn, *args, **kwargs))

    def commit(self):
        # pop_all() empties this stack so no callbacks are triggered on exit.
        self._stack.pop_all()
