"""libcst's parse, without validating again what its parser has just built.

Every libcst node checks itself when it is constructed (`CSTNode.__post_init__`
calls `_validate`): that is there for trees built by hand, such as a codemod's
replacement nodes. A tree that comes out of libcst's own parser is valid by
construction, and the checks cost about 8% of the parse (instructions counted
by cachegrind on 16,000 lines of the dense benchmark corpus: 8.52 G instead
of 9.26 G; about 1.0 million nodes per 51,000 lines). libcst's source says
as much ("It might make more sense to move validation work into
the visitor, which would allow us to avoid validating the tree when parsing
a file").

So, while ownlint parses, `CSTNode.__post_init__` does nothing; it is put
back afterwards, whatever happens. Nodes that other code builds in that
time (another thread) are not validated either, which changes nothing for
valid nodes. If a libcst version no longer has this hook, the parse is the
ordinary one. `tests/test_parsing.py` checks that the trees are the same
and that every node of every fixture passes its own validation.
"""

from __future__ import annotations

import libcst as cst

_NODE = cst.CSTNode
_VALIDATE = _NODE.__dict__.get("__post_init__")


def _skip(self: cst.CSTNode) -> None:
    return None


def parse_module(source: str) -> cst.Module:
    """`libcst.parse_module(source)`, the same tree, without re-validation."""
    if _VALIDATE is None:  # pragma: no cover - a libcst without the hook
        return cst.parse_module(source)
    _NODE.__post_init__ = _skip  # type: ignore[method-assign]
    try:
        return cst.parse_module(source)
    finally:
        _NODE.__post_init__ = _VALIDATE  # type: ignore[method-assign]
