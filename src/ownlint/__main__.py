"""`python -m ownlint`. Python puts the current directory (usually the
checked tree) first on the path of `-m`; it is dropped here, before anything
else is imported, so that a `threading.py` or a `multiprocessing.py` there is
never imported (`ownlint.processes.own_import_path`, which this repeats with
`os` and `sys` alone: both are loaded before any module can be found on the
path)."""

import os
import sys

_here = os.path.realpath(os.getcwd())
sys.path[:] = [entry for entry in sys.path if entry and os.path.realpath(entry) != _here]

from ownlint.cli import main  # noqa: E402 - after the path is safe

main()
