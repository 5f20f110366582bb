"""The values memory.py adds to the evaluator, as plain functions (no evaluator
needed): the tags of buffers, integers as linear forms over the page size,
addresses inside buffers, and the structures a descriptor links to.
memory.py's docstring describes the values.
"""

from __future__ import annotations

from ownlint.engine.values import domain, linear
from ownlint.engine.values.values import Addr, Lin, OneOf, Ref, Struct, Val, int_value

# the tags of an owner that is host memory (memory.py): plain, or one whose
# slices and view methods are views of it
BUFFER = "buffer"
ARRAY = "array"


def is_buffer_tag(tag: str) -> bool:
    """Whether an owner's tag says it is host memory."""
    return tag == BUFFER or tag == ARRAY


def lin_options(v: Val) -> list[linear.Lin] | None:
    """Every value `v` may have, as forms (`a if c else b` keeps both); None if unknown."""
    if type(v) is OneOf:
        out: list[linear.Lin] = []
        for x in v.options:
            sub = lin_options(x)
            if sub is None:
                return None
            out.extend(sub)
        return out
    form = as_lin(v)
    return [form] if form is not None else None


def as_lin(v: Val) -> linear.Lin | None:
    if type(v) is Lin:
        return v.form
    c = int_value(v)
    return linear.const(c) if c is not None else None


def lin_value(form: linear.Lin) -> Val:
    """An integer as a value: a constant, a form, or None past the bounds (domain.py)."""
    c = linear.constant_value(form)
    if c is not None:
        return domain.constant(c)
    return Lin(form) if domain.form_fits(form) else None


def addr_value(buffer: Val, form: linear.Lin | None) -> Val:
    """An address in `buffer` at offset `form` (None: unknown, or past the bounds)."""
    return Addr(buffer, form if form is not None and domain.form_fits(form) else None)


def linked(v: Val, field: str) -> list[tuple[Struct, Val]]:
    """The structures a value points into, following the link `field` from
    each to the next (at most 16): each with the reference to it (None: held
    by value)."""
    out: list[tuple[Struct, Val]] = []
    seen = 0
    ref: Val = None
    while seen < 16:
        seen += 1
        if type(v) is Ref:
            ref, v = v, v.value
            continue
        if type(v) is not Struct:
            break
        out.append((v, ref))
        ref = None
        v = v.get(field) if field else None
    return out
