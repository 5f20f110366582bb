"""libcst's parse, without the per-node work its parser does not need.

libcst's native parser builds every node by calling its class, and each class
is a frozen dataclass. Two costs there serve trees built by hand (a codemod's
replacement nodes), not trees that come out of the parser:

- `CSTNode.__post_init__` validates the node (`_validate`). A parsed tree is
  valid by construction; libcst's source says as much ("It might make more
  sense to move validation work into the visitor, which would allow us to
  avoid validating the tree when parsing a file"). About 8% of the parse.
- The generated `__init__` of a frozen dataclass sets each field with
  `object.__setattr__(self, "name", value)`: a global lookup, an attribute
  lookup and a lookup of the name on the type, per field. Setting the field
  through its slot's descriptor (`Name.value.__set__`, bound once) does the
  same store. About 6% of the parse.

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

import dataclasses
import sys
import types
from collections.abc import Callable, Iterator

import libcst as cst

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


_DEFAULT_FACTORY = object()  # the parameter's default when a field has a default factory


def _slot(cls: type, name: str) -> Callable[[object, object], None] | None:
    for klass in cls.__mro__:
        if name in klass.__dict__:
            found = klass.__dict__[name]
            return found.__set__ if isinstance(found, types.MemberDescriptorType) else None
    return None


def fast_init(cls: type) -> Callable[..., None] | None:
    """An `__init__` for the dataclass `cls` that stores each field through its
    slot and calls no `__post_init__`; None if `cls` is not such a class."""
    if not dataclasses.is_dataclass(cls) or "__init__" not in cls.__dict__:
        return None
    names: dict[str, object] = {"_FACTORY": _DEFAULT_FACTORY}
    params: list[str] = []
    body: list[str] = []
    for i, field in enumerate(dataclasses.fields(cls)):
        if not field.init or getattr(field, "kw_only", False) is True:
            return None
        setter = _slot(cls, field.name)
        if setter is None:
            return None
        names[f"_set{i}"] = setter
        value = field.name
        if field.default is not dataclasses.MISSING:
            names[f"_default{i}"] = field.default
            params.append(f"{field.name}=_default{i}")
        elif field.default_factory is not dataclasses.MISSING:
            names[f"_factory{i}"] = field.default_factory
            params.append(f"{field.name}=_FACTORY")
            value = f"_factory{i}() if {field.name} is _FACTORY else {field.name}"
        else:
            params.append(field.name)
        body.append(f"    _set{i}(self, {value})\n")
    source = f"def __init__(self, {', '.join(params)}):\n{''.join(body) or '    pass'}\n"
    made: dict[str, Callable[..., None]] = {}
    exec(source, names, made)  # noqa: S102 - the source is built above from field names
    made["__init__"].__qualname__ = f"{cls.__qualname__}.__init__"
    return made["__init__"]


def _fast_inits() -> tuple[dict[type, Callable[..., None]], dict[type, object]]:
    fast: dict[type, Callable[..., None]] = {}
    for cls in node_classes():
        init = fast_init(cls)
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
