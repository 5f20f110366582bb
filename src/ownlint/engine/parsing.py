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
without either; about 1.0 million nodes per 51,000 lines.)

So, when this module is imported, each node class whose fields all live in
slots gets an `__init__` with a switch: while ownlint parses (the switch is
on), it stores the fields through the slots' descriptors and validates
nothing; at any other time it calls libcst's own `__init__` with the same
arguments, validation included. (An earlier version swapped the classes'
`__init__` in and out around each parse: re-assigning a type's attribute
invalidates the type caches of all its subclasses, which cost 2% of a run.)
The stored values are the same (defaults and default factories included),
so the tree is the same. Nodes that other code builds while ownlint parses
(another thread) are not validated either, which changes nothing for valid
nodes. A class this does not handle keeps its own `__init__`, and its nodes
are validated as usual. `tests/test_parsing.py` checks that the trees are
the same, that every node of every fixture passes its own validation, and
that nodes built outside a parse are validated.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator

import libcst as cst

from ownlint.slots import slotted_init

_NODE = cst.CSTNode
# true while ownlint parses: the node classes' `__init__` (below) store
# their fields directly; at any other time they are libcst's own
_PARSING = [False]


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


def _install() -> dict[type, Callable[..., None]]:
    own: dict[type, Callable[..., None]] = {}
    for cls in node_classes():
        init = slotted_init(cls, post_init=False, switch=_PARSING)
        if init is not None:
            own[cls] = cls.__dict__["__init__"]
            cls.__init__ = init  # type: ignore[misc]
    return own


LIBCST_INITS = _install()  # the classes given a switched `__init__`, with libcst's own


def parse_module(source: str) -> cst.Module:
    """`libcst.parse_module(source)`, the same tree, without re-validation."""
    if _PARSING[0]:  # a parse from within a parse (another thread): the switch is someone else's
        return cst.parse_module(source)
    _PARSING[0] = True
    try:
        return cst.parse_module(source)
    finally:
        _PARSING[0] = False
