"""libcst's parse, without the per-node work its parser does not need.

libcst's native parser builds every node by calling its class, and each class
is a frozen dataclass. Two costs there serve trees built by hand (a codemod's
replacement nodes), not trees that come out of the parser:

- `CSTNode.__post_init__` validates the node (`_validate`). A parsed tree is
  valid by construction; libcst's source says as much ("It might make more
  sense to move validation work into the visitor, which would allow us to
  avoid validating the tree when parsing a file"). About 8% of the parse.
- The generated `__init__` of a frozen dataclass sets each field with
  `object.__setattr__(self, "name", value)`; setting it through its slot's
  descriptor does the same store, cheaper (see `ownlint.slots`). About 6%
  of the parse.

(Instructions counted by cachegrind on 16,000 lines of the dense benchmark
corpus: 9.26 G for `libcst.parse_module`, 8.48 G without validation, 7.95 G
with both; about 1.0 million nodes per 51,000 lines.)

So, while ownlint parses, each node class whose fields all live in slots has
an `__init__` that stores them through the descriptors and validates nothing,
and `CSTNode.__post_init__` does nothing (for any class left as it was);
everything is put back afterwards, whatever happens. The stored values are
the same (defaults and default factories included), so the tree is the same.
Nodes that other code builds in that time (another thread) are not
validated either, which changes nothing for valid nodes. If a libcst
version no longer has these hooks, the parse is the ordinary one, class by
class. `tests/test_parsing.py` checks that the trees are the same, that
every node of every fixture passes its own validation, and that the classes
are restored.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator

import libcst as cst

from ownlint.slots import slotted_init

_NODE = cst.CSTNode
_VALIDATE = _NODE.__dict__.get("__post_init__")


def _skip(self: cst.CSTNode) -> None:
    return None


def node_classes() -> Iterator[type]:
    """Every node class that libcst exports as itself (libcst's slotted copy of
    a dataclass replaces the class it was made from, which stays a subclass
    of the bases)."""
    seen: set[type] = set()
    stack: list[type] = [_NODE]
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub in seen:
                continue
            seen.add(sub)
            stack.append(sub)
            if getattr(sys.modules.get(sub.__module__), sub.__name__, None) is sub:
                yield sub


def _fast_inits() -> tuple[dict[type, Callable[..., None]], dict[type, object]]:
    fast: dict[type, Callable[..., None]] = {}
    for cls in node_classes():
        init = slotted_init(cls, post_init=False)
        if init is not None:
            fast[cls] = init
    return fast, {cls: cls.__dict__["__init__"] for cls in fast}


FAST_INITS, _INITS = _fast_inits()


def parse_module(source: str) -> cst.Module:
    """`libcst.parse_module(source)`, the same tree, without re-validation."""
    if _VALIDATE is not None:
        _NODE.__post_init__ = _skip  # type: ignore[method-assign]
    for cls, init in FAST_INITS.items():
        cls.__init__ = init  # type: ignore[misc]
    try:
        return cst.parse_module(source)
    finally:
        for cls, init in _INITS.items():
            cls.__init__ = init  # type: ignore[misc]
        if _VALIDATE is not None:
            _NODE.__post_init__ = _VALIDATE  # type: ignore[method-assign]
