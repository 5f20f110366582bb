"""A faster `__init__` for slotted dataclasses, frozen ones above all.

The `__init__` that `dataclasses` writes for a frozen class stores each field
with `object.__setattr__(self, "name", value)`: a global lookup, an
attribute lookup and a lookup of the name on the type, per field. When every
field lives in a slot, storing through the slot's own descriptor
(`Cls.name.__set__`, bound once) does the same store for about a third of
the cost. The engine builds hundreds of thousands of such objects per run
(libcst's nodes, while it parses; its own states, steps and spans).

`slotted_init(cls)` writes that `__init__` (the same parameters, defaults
and default factories, and the class's `__post_init__` when asked for), or
returns None for a class it does not handle; `@fast_init` installs it.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
import types
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T", bound=type)

_FACTORY = object()  # a parameter's default when its field has a default factory


def _slot(cls: type, name: str) -> Callable[[object, object], None] | None:
    for klass in cls.__mro__:
        if name in klass.__dict__:
            found = klass.__dict__[name]
            return found.__set__ if isinstance(found, types.MemberDescriptorType) else None
    return None


def slotted_init(
    cls: type, post_init: bool = True, switch: list[bool] | None = None, assign: bool = False
) -> Callable[..., None] | None:
    """An `__init__` for the dataclass `cls` that stores each field through its
    slot (then calls `__post_init__`, if `post_init` and the class has one);
    None if `cls` is not a dataclass whose every field is a plain, slotted
    `__init__` parameter.

    With a `switch`, it does so only while `switch[0]` is true; otherwise it
    calls the class's own `__init__` (the one it replaces) with the same
    arguments.

    With `assign`, it stores each field with a plain assignment
    (`self.name = value`) instead, for a class whose `__setattr__` is
    `object.__setattr__` (not a frozen dataclass's): CPython then stores
    straight into the slot, at a fraction of the cost of a descriptor call."""
    if not dataclasses.is_dataclass(cls) or "__init__" not in cls.__dict__:
        return None
    names: dict[str, object] = {"_FACTORY": _FACTORY, "_switch": switch, "_own": cls.__dict__["__init__"]}
    kinds: list[str] = []
    params: list[str] = []
    defaults: list[object] = []
    for i, field in enumerate(dataclasses.fields(cls)):
        if not field.init or getattr(field, "kw_only", False) is True:
            return None
        setter = _slot(cls, field.name)
        if setter is None:
            return None
        names[f"_set{i}"] = setter
        params.append(field.name)
        if field.default is not dataclasses.MISSING:
            kinds.append("default")
            defaults.append(field.default)
        elif field.default_factory is not dataclasses.MISSING:
            kinds.append("factory")
            names[f"_factory{i}"] = field.default_factory
            defaults.append(_FACTORY)
        else:
            kinds.append("plain")
    code = _template(tuple(kinds), switch is not None, post_init and hasattr(cls, "__post_init__"), assign)
    fields = {f"_a{i}": name for i, name in enumerate(params)}
    code = code.replace(co_varnames=("self", *params), co_names=tuple(fields.get(n, n) for n in code.co_names))
    init = types.FunctionType(code, names, "__init__", tuple(defaults))
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


@functools.lru_cache(maxsize=None)
def _template(kinds: tuple[str, ...], switched: bool, post_init: bool, assign: bool) -> types.CodeType:
    """The code of an `__init__` for fields of these kinds, its parameters
    named `_p0`, `_p1`, ... and, with `assign`, the attributes it sets `_a0`,
    `_a1`, ... (`slotted_init` renames both to the fields'): libcst's 172 node
    classes share 66 shapes, and compiling one per class took 16 ms of the
    engine's import (10 ms so)."""
    params: list[str] = []
    values: list[str] = []
    for i, kind in enumerate(kinds):
        params.append(f"_p{i}" if kind == "plain" else f"_p{i}=None")  # the defaults are the function's
        values.append(f"_factory{i}() if _p{i} is _FACTORY else _p{i}" if kind == "factory" else f"_p{i}")
    if assign:
        body = [f"    self._a{i} = {value}\n" for i, value in enumerate(values)]
    else:
        body = [f"    _set{i}(self, {value})\n" for i, value in enumerate(values)]
    if switched:
        body.insert(0, f"    if not _switch[0]:\n        return _own(self, {', '.join(values)})\n")
    if post_init:
        body.append("    self.__post_init__()\n")
    source = f"def __init__(self, {', '.join(params)}):\n{''.join(body) or '    pass'}\n"
    made: dict[str, Callable[..., None]] = {}
    exec(source, {}, made)  # noqa: S102 - built above from the fields' kinds
    return made["__init__"].__code__


def fast_init(cls: T) -> T:
    """Class decorator, above `@dataclass(slots=True, ...)`: installs the faster
    `__init__`; a TypeError for a class `slotted_init` does not handle."""
    init = slotted_init(cls)
    if init is None:
        raise TypeError(f"{cls.__qualname__}: not a dataclass with every field in a slot")
    cls.__init__ = init  # type: ignore[misc]
    return cls


def pickle_by_fields(cls: T) -> T:
    """Class decorator, above `@dataclass`: pickles (and copies) an instance as
    its class called with its fields in order, instead of the default for a
    slotted class (a dict of the slots' values, set one by one on a bare
    object): about three times faster both ways. The worker processes send
    their findings back this way. A TypeError for a field that is not a plain
    `__init__` parameter."""
    fields = dataclasses.fields(cls)
    if not fields or any(not f.init or getattr(f, "kw_only", False) is True for f in fields):
        raise TypeError(f"{cls.__qualname__}: a field is not a plain __init__ parameter")
    names = [f.name for f in fields]
    values = operator.attrgetter(*names) if len(names) > 1 else (lambda obj: (getattr(obj, names[0]),))

    def __reduce__(self: object) -> tuple[type, tuple[object, ...]]:
        return (cls, values(self))

    __reduce__.__qualname__ = f"{cls.__qualname__}.__reduce__"
    cls.__reduce__ = __reduce__  # type: ignore[assignment,method-assign]
    return cls
