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

Two more savings, with libcst 1.9's numbers on the same corpus: the native
parser is called from a frame whose `__import__` costs nothing (it imports
`libcst` once per node: `_native_entry`), 3% of the parse; and a process
that runs nothing but the engine (the engine host, a worker) makes the node
classes unfrozen, so that their `__init__` stores each field with a plain
assignment (`unfreeze_nodes`), 6% more. `tests/test_parsing.py` runs its
tests again in an unfrozen process.
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
_UNFROZEN: list[bool] = [False]


def unfreeze_nodes() -> None:
    """For a process that runs nothing but ownlint's engine (a worker, the
    engine host): each class given a switched `__init__` gets
    `object.__setattr__` and `object.__delattr__` instead of its frozen
    dataclass's, and its `__init__` stores the fields with plain assignments
    while ownlint parses. CPython then stores straight into each slot instead
    of calling the slot's descriptor: 6% fewer instructions per parse, with
    libcst 1.9 on the dense benchmark corpus. The trees are the same; the
    only other difference is that setting a node's attribute no longer
    raises `FrozenInstanceError`, which ownlint never does. Idempotent; a
    process that may run other code (the language server, a library user's,
    a `--jobs 1` run) keeps the frozen classes."""
    if _UNFROZEN[0]:
        return
    _UNFROZEN[0] = True
    for cls, own in LIBCST_INITS.items():
        init = slotted_init(cls, post_init=False, switch=_PARSING, assign=True)
        assert init is not None  # the same class that got one before
        init.__globals__["_own"] = own  # libcst's, not the switched one it replaces
        cls.__setattr__ = object.__setattr__  # type: ignore[assignment]
        cls.__delattr__ = object.__delattr__  # type: ignore[assignment]
        cls.__init__ = init  # type: ignore[misc]


def _native_entry() -> Callable[[str], cst.Module] | None:
    """libcst's native `parse_module`, called as `libcst.parse_module` calls it
    for a `str`, from a frame whose builtins make its imports cheap; None if
    libcst parses in Python (`LIBCST_PARSER_TYPE=pure`, libcst 1.0) or has
    no native parser.

    For each node it builds, the native parser imports `libcst` again
    (`PyImport_Import`): that calls the `__import__` of the calling frame's
    builtins, throws its result away and takes the module from `sys.modules`.
    Called from here, `__import__` is `"".format`, which takes any arguments
    and does nothing, instead of the import machinery's checks that the
    module is not half imported: 3% fewer instructions per parse. If the
    native parser ever imports a module that is not loaded yet, the lookup
    in `sys.modules` fails with a `KeyError`, and `parse_module` parses
    that file, and every later one, libcst's usual way."""
    import os

    if os.environ.get("LIBCST_PARSER_TYPE") == "pure":
        return None
    try:
        from libcst.native import parse_module as native_parse_module  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover - every libcst ownlint supports has one
        return None
    scope = {"__builtins__": {"__import__": "".format}, "_native_parse_module": native_parse_module}
    exec("def parse(source):\n    return _native_parse_module(source, encoding='utf-8')\n", scope)  # noqa: S102
    return scope["parse"]  # type: ignore[return-value]


_NATIVE = [_native_entry()]


def parse_module(source: str) -> cst.Module:
    """`libcst.parse_module(source)`, the same tree, without re-validation."""
    if _PARSING[0]:  # a parse from within a parse (another thread): the switch is someone else's
        return cst.parse_module(source)
    _PARSING[0] = True
    try:
        native = _NATIVE[0]
        if native is not None:
            try:
                return native(source)
            except KeyError:  # a module the native parser wants is not loaded: see `_native_entry`
                _NATIVE[0] = None
        return cst.parse_module(source)
    finally:
        _PARSING[0] = False
