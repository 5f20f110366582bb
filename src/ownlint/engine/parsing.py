"""The engine's parse: `libcst.parse_module`, as libcst provides it.

An earlier version made libcst's parse cheaper by reaching into libcst and the
interpreter (generated `__init__`s for the node classes that skipped
validation, the node classes unfrozen in the worker processes, the native
parser called from a frame with a no-op `__import__`). Each of those depended
on libcst's and CPython's internals and would break silently with a new
release of either, and users install whatever libcst is current; they are
gone. The engine's own costs around the parse that use public APIs only stay
(`gc.freeze` of the trees in `ownlint.engine.project`, the prefilter that
parses only files naming modelled calls).
"""

from __future__ import annotations

import libcst as cst


def parse_module(source: str) -> cst.Module:
    """`libcst.parse_module(source)`: a `libcst.ParserSyntaxError` for a file
    that does not parse."""
    return cst.parse_module(source)
