"""Linear forms over the page size, for addresses, offsets and sizes.

A form is a sum of monomials with integer coefficients: `2*P + 100`,
`n*P` (for an unknown integer `n`), `8192`. `P` is the host page size, a
power of two of at least 4096 that the analysis does not fix (mappings of
host memory may require page alignment), unless the user sets `page-size`,
when it is that number. Other symbols
stand for integers the analysis could not compute; a form that mentions one
is still aligned when every term has a factor `P`.

Forms are tuples of (monomial, coefficient) pairs, sorted, without zero
coefficients; a monomial is a sorted tuple of symbol names, `()` for the
constant term.
"""

from __future__ import annotations

Lin = tuple[tuple[tuple[str, ...], int], ...]

P = "P"
MIN_PAGE = 4096


def const(c: int) -> Lin:
    return (((), c),) if c else ()


def sym(name: str) -> Lin:
    return (((name,), 1),)


def _norm(terms: dict[tuple[str, ...], int]) -> Lin:
    return tuple(sorted((m, c) for m, c in terms.items() if c))


def add(a: Lin, b: Lin, sign: int = 1) -> Lin:
    out = dict(a)
    for m, c in b:
        out[m] = out.get(m, 0) + sign * c
    return _norm(out)


def mul(a: Lin, b: Lin) -> Lin | None:
    """The product, or None when it would not be linear in P (P*P)."""
    out: dict[tuple[str, ...], int] = {}
    for ma, ca in a:
        for mb, cb in b:
            m = tuple(sorted(ma + mb))
            if m.count(P) > 1:
                return None
            out[m] = out.get(m, 0) + ca * cb
    return _norm(out)


def constant_value(a: Lin) -> int | None:
    if not a:
        return 0
    if len(a) == 1 and a[0][0] == ():
        return a[0][1]
    return None


def aligned(a: Lin, page_size: int | None) -> bool | None:
    """Whether `a` is a multiple of the page size: True, False, or None (unknown).

    With a symbolic page size a literal multiple of 4096 is accepted; a
    term with P is aligned whatever multiplies it.
    """
    unit = page_size or MIN_PAGE
    misaligned_constant = False
    for m, c in a:
        if P in m:
            continue
        if m == ():
            if c % unit:
                misaligned_constant = True
            continue
        return None  # an unknown integer without a factor P
    return not misaligned_constant


def sign(a: Lin) -> int | None:
    """The sign of `a` for every P >= 4096 (P a power of two), or None."""
    c0 = 0
    cp = 0
    for m, c in a:
        if m == ():
            c0 = c
        elif m == (P,):
            cp = c
        else:
            return None
    low = c0 + cp * MIN_PAGE  # the value at the smallest page size
    if cp == 0:
        return (c0 > 0) - (c0 < 0)
    if cp > 0 and low > 0:
        return 1
    if cp < 0 and low < 0:
        return -1
    return None  # zero at the smallest page size and not at larger ones, or changing sign


def show(a: Lin) -> str:
    """`2*P + 100`, for messages."""
    if not a:
        return "0"
    parts = []
    for m, c in sorted(a, key=lambda t: (-len(t[0]), t[0])):
        names = "*".join(x if x == P else "n" for x in m)
        if not names:
            parts.append(str(c))
        elif c == 1:
            parts.append(names)
        else:
            parts.append(f"{c}*{names}")
    return " + ".join(parts).replace("+ -1*", "- ").replace("+ -", "- ")
